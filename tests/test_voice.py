"""One voice for warnings, and a run that explains itself (issues 27 and 29).

Every warning of a run, from this process or a worker, reaches the terminal as one
``wefe-same: warning:`` line, once per model and kind, and lands in
``RankResult.warnings``, the manifest and the report; a metric that ranks no model names
its reasons; undefined correlations say why; the last line points to report.html.
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import GENDER_WORDS, MINI_QUERY, write_glove

from wefe_same import Encoding, Execution, rank
from wefe_same.api import load_model
from wefe_same.cli import main
from wefe_same.errors import Caught, WarningLog, WefeSameWarning, catch, model_warning, translate
from wefe_same.models.encoders import EncoderSource
from wefe_same.output.rendering import drawing_note
from wefe_same.run.executors import InProcess, Processes

#: A template that puts every word past the tiny models' 40 positions.
LONG = "This is a {word} " + "and so on " * 40 + "."
PREFIX = "wefe-same: warning: "


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Two static models (one with a 150-character name), the mini query."""
    path = tmp_path_factory.mktemp("voice")
    (path / "mini.toml").write_text(MINI_QUERY)
    write_glove(path / "a.txt", GENDER_WORDS, np.random.default_rng(0).normal(size=(12, 5)))
    write_glove(path / ("b" * 150 + ".txt"), GENDER_WORDS, np.random.default_rng(1).normal(size=(12, 5)))
    return path


# ----------------------------------------------------------------------------- the log
def test_a_kind_is_said_once_per_model_whatever_its_counts():
    log = WarningLog()
    with pytest.warns(WefeSameWarning) as shown:
        log.add([catch(model_warning("3 text(s) are cut", kind="cut"), WefeSameWarning, "x.py")], "m")
        log.add([catch(model_warning("5 text(s) are cut", kind="cut"), WefeSameWarning, "x.py")], "m")
        log.add([catch(model_warning("3 text(s) are cut", kind="cut"), WefeSameWarning, "x.py")], "n")
    assert log.messages == ["3 text(s) are cut"]  # "n"'s is the same text: said once
    assert [str(w.message) for w in shown] == ["3 text(s) are cut"]
    with pytest.warns(WefeSameWarning, match="7 text"):
        log.add([catch(model_warning("7 text(s) are cut", kind="cut"), WefeSameWarning, "x.py")], "n")
    assert log.messages == ["3 text(s) are cut", "7 text(s) are cut"]


def test_numpy_floating_point_warnings_name_the_model_and_deprecations_are_silenced():
    said = translate(Caught("RuntimeWarning", False, None, "overflow encountered in multiply", "wefe_same"),
                     "glove+ran-debias[lr=1e300]")
    assert said is not None
    assert said[2].startswith("model 'glove+ran-debias[lr=1e300]': a numeric step gave values beyond float64 "
                              "(numpy: overflow encountered in multiply)")
    assert translate(Caught("FutureWarning", False, None, "`x` is deprecated", "transformers"), "m") is None
    other = translate(Caught("UserWarning", False, None, "some\nthing", "torch"), "m")
    assert other == ("m", "UserWarning: some thing", "model 'm': torch warned: some thing")


def test_capture_passes_each_warning_on_once_in_the_tools_words():
    log = WarningLog()
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        with log.capture("m"):
            for _ in range(3):
                np.multiply(np.float64(1e308), np.float64(10))
            warnings.warn("a query warning", WefeSameWarning, stacklevel=1)
            warnings.warn("a query warning", WefeSameWarning, stacklevel=1)
    assert [w.category for w in shown] == [WefeSameWarning, WefeSameWarning]
    assert [str(w.message) for w in shown] == log.messages
    assert log.messages[0].startswith("model 'm': a numeric step gave values beyond float64")
    assert log.messages[1] == "a query warning"


def test_matplotlib_layout_warnings_become_a_note_of_the_figure():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("constrained_layout not applied because axes sizes collapsed to zero.  Try making figure "
                      "larger or Axes decorations smaller.", UserWarning, stacklevel=1)
        warnings.warn("x is deprecated", DeprecationWarning, stacklevel=1)
    assert drawing_note(caught[0]) == (None, "its labels (long model or metric names) leave the plot no room",
                                       "drawn without matplotlib's layout: labels may overlap")
    assert drawing_note(caught[1]) is None


# ----------------------------------------------------------------------------- jobs in any process
def _jobs():
    return [(warnings.warn, (model_warning("3 text(s) are cut", kind="cut"),)),
            (warnings.warn, (model_warning("5 text(s) are cut", kind="cut"),)),
            (np.multiply, (np.float64(1e308), np.float64(10)))]


@pytest.mark.parametrize("executor", [InProcess, lambda: Processes(2)], ids=["in-process", "processes"])
def test_a_jobs_warnings_come_back_with_its_result_once_per_model_and_kind(executor):
    log = WarningLog()
    names = ["m", "m", "n"]
    with warnings.catch_warnings(record=True) as shown, executor() as ex:
        warnings.simplefilter("always")
        done = sorted(i for i, _ in ex.run(_jobs(), said=lambda i, caught: log.add(caught, names[i])))
    assert done == [0, 1, 2]
    assert len(log.messages) == 2
    # the cut texts once for "m" (whichever of its jobs finished first), the overflow named for "n"
    assert len([m for m in log.messages if m in ("3 text(s) are cut", "5 text(s) are cut")]) == 1
    assert len([m for m in log.messages if m.startswith("model 'n': a numeric step gave values beyond float64")]) == 1
    assert [str(w.message) for w in shown] == log.messages
    assert all(w.category is WefeSameWarning for w in shown)


# ----------------------------------------------------------------------------- whole runs
def _warning_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.strip()]


def test_an_encoders_cut_texts_are_one_line_from_a_worker_and_land_in_manifest_and_report(
        folder, tiny, capsys, monkeypatch):
    monkeypatch.chdir(folder)
    code = main(["rank", "--models", "a.txt", f"hf:{tiny['bert']}", "--queries", "mini.toml", "--no-cache",
                 "--template", LONG, "--workers", "2", "--permutations", "0", "--metrics", "WEAT", "RND",
                 "--out", "cut"])
    err = capsys.readouterr().err
    assert code == 0
    lines = _warning_lines(err)
    assert all(line.startswith(PREFIX) for line in lines), err  # no raw Python warning, no source line
    cut = [line for line in lines if "are longer than the model's 40 positions" in line]
    assert len(cut) == 1, err
    manifest = json.loads((folder / "cut" / "manifest.json").read_text())
    assert cut[0].removeprefix(PREFIX) in manifest["warnings"]
    page = (folder / "cut" / "report.html").read_text()
    assert "are longer than the model&#x27;s 40 positions" in page or "are longer than the model's 40" in page


def test_warnings_repeated_per_batch_in_process_are_said_once_and_kept_in_the_result(folder, tiny, monkeypatch):
    # 8 words in batches of 2: 4 batches, each warning that its texts are cut
    monkeypatch.setitem(EncoderSource.__init__.__kwdefaults__, "batch_size", 2)
    with pytest.warns(WefeSameWarning) as shown:
        result = rank([str(folder / "a.txt"), f"hf:{tiny['bert']}"], queries=str(folder / "mini.toml"),
                      metrics=["WEAT"], permutations=0, execution=Execution(cache=False),
                      encoding=Encoding(templates=[LONG]))
    assert load_model(f"hf:{tiny['bert']}").batch_size == 2
    cut = [str(w.message) for w in shown if "are longer than" in str(w.message)]
    assert len(cut) == 1
    assert cut[0].startswith(f"model spec 'hf:{tiny['bert']}': 2 text(s) are longer than")
    assert result.warnings == result.manifest["warnings"]
    assert cut[0] in result.warnings


def test_long_model_names_give_no_raw_matplotlib_line(folder, capsys, monkeypatch):
    monkeypatch.chdir(folder)
    code = main(["rank", "--models", "a.txt", "b" * 150 + ".txt", "--queries", "mini.toml", "--no-cache",
                 "--permutations", "0", "--out", "long"])
    err = capsys.readouterr().err
    assert code == 0
    assert all(line.startswith(PREFIX) for line in _warning_lines(err)), err
    assert "constrained_layout" not in err and "Tight layout" not in err
    assert "leave the plot no room" in err  # the figure's note, naming the figure
    manifest = json.loads((folder / "long" / "manifest.json").read_text())
    assert any("leave the plot no room" in w for w in manifest["warnings"])


def test_a_metric_that_ranks_no_model_names_its_reasons_and_the_last_line_the_page(folder, capsys, monkeypatch):
    monkeypatch.chdir(folder)
    code = main(["rank", "--models", "a.txt", "b" * 150 + ".txt", "--queries", "mini.toml", "--no-cache",
                 "--permutations", "0", "--metrics", "WEAT", "RND", "ECT", "--out", "why"])
    out, err = capsys.readouterr()
    assert code == 0
    assert (f"{PREFIX}ECT ranks no model: every aggregate is undefined; most common reasons: 2 attribute "
            "word(s): a rank correlation needs 3 (×4); every reason is in details.csv") in err.splitlines()
    assert (f"{PREFIX}Spearman needs at least three ranked models; this run ranked 2: every correlation is "
            "undefined (NaN)") in err.splitlines()
    assert out.splitlines()[-1].endswith(f"; open {folder / 'why' / 'report.html'} to see every table, figure "
                                         "and warning")
    manifest = json.loads((folder / "why" / "manifest.json").read_text())
    assert any(w.startswith("ECT ranks no model") for w in manifest["warnings"])


def test_rank_result_warnings_hold_the_query_set_warnings_of_the_manifest(folder):
    query = MINI_QUERY.replace('words = ["nurse", "teacher"]', 'words = ["nurse", "doctor"]')
    (folder / "overlap.toml").write_text(query)
    with pytest.warns(WefeSameWarning):
        result = rank([str(folder / "a.txt"), str(folder / ("b" * 150 + ".txt"))],
                      queries=str(folder / "overlap.toml"), metrics=["WEAT"], permutations=0,
                      execution=Execution(cache=False))
    shared = [w for w in result.warnings if "share 1 word: doctor" in w]
    assert len(shared) == 1
    assert result.warnings == result.manifest["warnings"]
    assert isinstance(result.rankings, pd.DataFrame)
