"""The output folder contract (issue 7): nothing the tool did not write is ever deleted,
moved or overwritten; earlier results are replaced whole or not at all.

Every hostile case checks the error's one-line message and that every byte present
before is still there after. Results are hand-built (no model is read), figures are
asked in SVG only where figures are not the point (the cheapest format).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wefe_same.errors import OutputError, WefeSameWarning
from wefe_same.interrupts import signals_deferred
from wefe_same.output import figures as plots
from wefe_same.output import folder as outdir
from wefe_same.output import rendering
from wefe_same.output import writer as report
from wefe_same.output.folder import MANIFEST, OWNER, check_output, clean_stale, write_folder
from wefe_same.result import RankResult
from wefe_same.validation import InvalidParameterError

NONE = ()  # no figures: for the cases where figures are not the point
FAST = ("svg",)


# -- helpers --------------------------------------------------------------------------


def tiny_result(models=("a", "b", "c"), *, empty=(), seed=0, object_values=False) -> RankResult:
    """A hand-built result: 2 metrics × 2 subqueries; models in ``empty`` have only NaN."""
    rng = np.random.default_rng(seed)
    models, metrics, columns = list(models), ["WEAT", "SAME"], ["g:x|y", "g:x|z"]
    scores = {}
    for metric in metrics:
        frame = pd.DataFrame(rng.normal(size=(len(models), 2)), index=models, columns=columns)
        frame.loc[list(empty)] = np.nan
        scores[metric] = frame.rename_axis("model")
    aggregates = pd.DataFrame({m: scores[m].abs().mean(axis=1) for m in metrics}).rename_axis(
        index="model", columns="metric")
    rankings = aggregates.rank(method="min").astype("Int64")
    rho = rankings.astype(float).corr("spearman")
    by_query_set = pd.DataFrame(
        [("overall", m, model, aggregates.at[model, m], rankings.at[model, m], 2,
          int(scores[m].loc[model].notna().sum())) for m in metrics for model in models],
        columns=["query_set", "metric", "model", "value", "rank", "n_subqueries", "n_defined"])
    details = pd.DataFrame(
        [(model, m, c, scores[m].at[model, c], "no word left" if model in empty else "")
         for m in metrics for model in models for c in columns],
        columns=["model", "metric", "subquery", "value", "reason"])
    lookups = pd.DataFrame([(model, w, w, "exact") for model in models for w in ("he", "she")],
                           columns=["model", "word", "found_as", "status"])
    words = ["doctor", "nurse", "teacher"]
    word_bias = pd.DataFrame(
        [(model, "SAME", "g:x|y", w, "b", np.nan if model in empty else float(rng.random()))
         for model in models for w in words],
        columns=["model", "metric", "subquery", "word", "component", "value"])
    if object_values:  # what concatenating an empty model's table gave: the old crash
        word_bias["value"] = word_bias["value"].astype(object)
    return RankResult(scores=scores, aggregates=aggregates, rankings=rankings, correlations=rho,
                      correlation_pvalues=rho * 0, by_query_set=by_query_set, details=details,
                      lookups=lookups, manifest={"seed": seed, "models": models}, word_bias=word_bias)


def snapshot(root: Path) -> dict[str, object]:
    """Every entry below ``root`` (itself included): file bytes, "dir", or a link target."""
    found: dict[str, object] = {}
    for path in [root, *sorted(root.rglob("*"))]:
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[rel] = ("link", os.readlink(path))
        elif path.is_dir():
            found[rel] = ("dir", stat.S_IMODE(path.stat().st_mode))
        else:
            found[rel] = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return found


def user_folder(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "thesis.tex").write_text("\\section{Results}\n")
    (path / "data").mkdir()
    (path / "data" / "embeddings.txt").write_bytes(b"he 0.1 0.2\n")
    return path


def leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if ".partial-" in p.name or ".old-" in p.name)


def marker(folder: Path, **fields) -> Path:
    folder.mkdir()
    record = {**outdir.owner_record(), **fields}
    (folder / OWNER).write_text(json.dumps(record))
    (folder / "rankings.csv").write_text("half,written\n")
    return folder


@pytest.fixture(scope="module")
def result() -> RankResult:
    return tiny_result()


# -- refused locations: message names the path, nothing is touched ---------------------


def test_out_dot_in_a_folder_of_user_files_is_refused_and_every_byte_kept(result, tmp_path, monkeypatch):
    home = user_folder(tmp_path / "project")
    monkeypatch.chdir(home)
    before = snapshot(tmp_path)
    for out in (".", home, tmp_path, "data/.."):
        with pytest.raises(OutputError, match=r"is the current folder or one of its parents; choose a new folder"):
            result.save(out, formats=NONE)
    with pytest.raises(OutputError, match=r"^output \. is the current folder"):
        check_output(".")
    assert snapshot(tmp_path) == before


def test_out_at_an_existing_file_is_refused_and_the_file_untouched(result, tmp_path):
    target = tmp_path / "f.txt"
    target.write_text("my notes\n")
    before = snapshot(tmp_path)
    with pytest.raises(OutputError, match=rf"^output {target} is an existing file, not a folder; choose a new folder"):
        result.save(target, formats=NONE)
    with pytest.raises(OutputError, match=r"cannot be created: .*f\.txt is a file"):
        result.save(target / "results", formats=NONE)
    assert snapshot(tmp_path) == before


def test_non_empty_folder_that_is_not_a_results_folder_is_refused(result, tmp_path):
    folder = user_folder(tmp_path / "mine")
    # A manifest without a file inventory (not written by this contract) is no licence either.
    (folder / MANIFEST).write_text(json.dumps({"wefe_same": "0.0.1"}))
    before = snapshot(tmp_path)
    with pytest.raises(OutputError, match=rf"^output {folder} is a non-empty folder that wefe-same did not "
                                          r"write .*; choose a new folder or remove it yourself$"):
        result.save(folder, formats=NONE)
    assert snapshot(tmp_path) == before and leftovers(tmp_path) == []


def test_symbolic_link_is_refused(result, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    before = snapshot(tmp_path)
    with pytest.raises(OutputError, match=rf"^output {link} is a symbolic link"):
        result.save(link, formats=NONE)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("intrusion", ["new file", "edited file", "empty folder", "symlink"])
def test_results_folder_holding_foreign_or_edited_files_is_refused(result, tmp_path, intrusion):
    out = result.save(tmp_path / "res", formats=NONE)
    if intrusion == "new file":
        (out / "tables" / "my_edit.tex").write_text("mine")
        entry, problem = "tables/my_edit.tex", "which wefe-same did not write"
    elif intrusion == "edited file":
        with open(out / "rankings.csv", "a") as fh:
            fh.write("# checked by hand\n")
        entry, problem = "rankings.csv", "was changed after wefe-same wrote it"
    elif intrusion == "empty folder":
        (out / "drafts").mkdir()
        entry, problem = "drafts", "which wefe-same did not write"
    else:
        (out / "latest").symlink_to(out / "rankings.csv")
        entry, problem = "latest", "which wefe-same did not write"
    before = snapshot(tmp_path)
    with pytest.raises(OutputError, match=rf"^output {out}.*'{entry}'.*{problem}"):
        result.save(out, formats=NONE)
    assert snapshot(tmp_path) == before and leftovers(tmp_path) == []


def test_unwritable_location_is_refused_before_any_work(result, tmp_path):
    if os.geteuid() != 0:
        parent = tmp_path / "locked"
        parent.mkdir()
        parent.chmod(0o555)
    else:  # root writes through file modes; /sys refuses everyone
        parent = Path("/sys/fs")
    try:
        with pytest.raises(OutputError, match=rf"^output {parent / 'res'} cannot be written: {parent} is not writable"):
            check_output(parent / "res")
        with pytest.raises(OutputError, match="is not writable"):
            result.save(parent / "res" / "deeper", formats=NONE)
        assert not (parent / "res").exists()
    finally:
        if parent.is_relative_to(tmp_path):
            parent.chmod(0o755)


def test_bad_formats_and_workers_are_refused_before_anything_is_written(result, tmp_path):
    with pytest.raises(InvalidParameterError, match=r"The 'formats' parameter of save must be one of 'png', "
                                                     r"'pdf', 'svg'. Got 'jpg' instead."):
        result.save(tmp_path / "res", formats=["png", "jpg"])
    with pytest.raises(InvalidParameterError, match="'figure_workers' parameter of save"):
        result.save(tmp_path / "res", figure_workers=0)
    assert list(tmp_path.iterdir()) == []
    assert report.check_formats("pdf") == ("pdf",)


# -- replacing earlier results ----------------------------------------------------------


def test_results_folder_is_created_with_an_inventory_and_replaced_whole(tmp_path):
    first = dataclasses.replace(tiny_result(seed=1), robustness=pd.DataFrame(
        {"model": ["a", "b", "c"], "metric": "SAME", "mean_abs_change": [0.1, 0.2, 0.3]}))
    out = first.save(tmp_path / "deep" / "res", formats=FAST)
    assert out == (tmp_path / "deep" / "res").resolve()
    manifest = json.loads((out / MANIFEST).read_text())
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} - {MANIFEST}
    assert set(manifest["files"]) == files and manifest["kind"] == "results" and manifest["wefe_same"]
    assert manifest["files"]["rankings.csv"] == hashlib.sha256((out / "rankings.csv").read_bytes()).hexdigest()
    assert {"robustness.csv", "figures/robustness.svg", OWNER, "tables/rankings.md"} <= files
    assert manifest["figure_formats"] == ["svg"] and manifest["seed"] == 1

    second = tiny_result(seed=2)
    assert second.save(out, formats=NONE) == out
    assert not (out / "robustness.csv").exists() and not (out / "figures" / "robustness.svg").exists()
    pd.testing.assert_frame_equal(pd.read_csv(out / "rankings.csv", index_col=0),
                                  second.rankings.astype(float), check_dtype=False, check_names=False)
    assert json.loads((out / MANIFEST).read_text())["seed"] == 2
    assert leftovers(out.parent) == [] and sorted(p.name for p in out.parent.iterdir()) == ["res"]


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two renames"])
def test_replacing_leaves_no_old_folder_whichever_swap(tmp_path, monkeypatch, exchange):
    if not exchange:
        monkeypatch.setattr(outdir, "_exchange", lambda a, b: False)
    out = tiny_result(seed=1).save(tmp_path / "res", formats=NONE)
    tiny_result(seed=2).save(out, formats=NONE)
    assert json.loads((out / MANIFEST).read_text())["seed"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]


def test_empty_folder_is_used(result, tmp_path):
    (tmp_path / "res").mkdir()
    out = result.save(tmp_path / "res", formats=NONE)
    assert (out / "rankings.csv").is_file()


def test_interrupt_while_writing_leaves_earlier_results_byte_identical(result, tmp_path, monkeypatch):
    out = tiny_result(seed=5).save(tmp_path / "res", formats=FAST)
    before = snapshot(tmp_path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(plots, "score_heatmap", interrupted)
    with pytest.raises(KeyboardInterrupt):
        result.save(out, formats=FAST, figures="all")  # the score heatmaps are drawn
    assert snapshot(tmp_path) == before and leftovers(tmp_path) == []


def test_a_figure_that_fails_is_a_warning_not_a_lost_run(result, tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("no colour for this")

    monkeypatch.setattr(plots, "correlation_heatmap", broken)
    with pytest.warns(WefeSameWarning, match=r"figure correlations: drawing failed \(ValueError: no colour"):
        out = result.save(tmp_path / "res", formats=FAST)
    assert not (out / "figures" / "correlations.svg").exists()
    assert (out / "figures" / "accumulated_rankings.svg").is_file() and (out / "rankings.csv").is_file()
    assert any("drawing failed" in w for w in json.loads((out / MANIFEST).read_text())["warnings"])


def test_signals_wait_until_the_swap_is_done(ctrl_c_raises):
    reached = False
    with pytest.raises(KeyboardInterrupt):
        with signals_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            reached = True
    assert reached


# -- leftovers of killed runs -----------------------------------------------------------


def dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                           text=True, check=True)
    return int(child.stdout)


def test_stale_temporary_folders_are_removed_only_when_provably_ours(result, tmp_path):
    me = outdir.owner_record()
    gone = {
        ".res.partial-dead": {"pid": dead_pid()},
        ".res.old-dead": {"pid": dead_pid()},
        ".res.partial-reused": {"pid": os.getpid(), "start": me["start"] - 1},  # pid recycled
        ".res.partial-reboot": {"pid": os.getpid(), "boot_id": "another-boot"},
    }
    kept = {
        ".res.partial-live": {"pid": os.getpid()},
        ".res.partial-elsewhere": {"pid": dead_pid(), "host": socket.gethostname() + "-other"},
        ".res.partial-notours": {"pid": dead_pid(), "tool": "something-else"},
        ".other.partial-dead": {"pid": dead_pid()},  # another output's leftovers: not asked
    }
    for name, fields in {**gone, **kept}.items():
        marker(tmp_path / name, **fields)
    no_marker = tmp_path / ".res.partial-nomarker"
    no_marker.mkdir()
    (no_marker / "file").write_text("whose?")
    before = snapshot(tmp_path)

    result.save(tmp_path / "res", formats=NONE)
    names = {p.name for p in tmp_path.iterdir()}
    assert names == {"res", *kept, no_marker.name}
    after = snapshot(tmp_path)
    assert {k: v for k, v in before.items() if not k.startswith(tuple(gone))} == {
        k: v for k, v in after.items() if not k.startswith("res")}
    assert clean_stale(tmp_path / "res") == []


def test_a_run_killed_with_sigkill_is_cleaned_up_by_the_next(result, tmp_path):
    """SIGKILL while drawing: the partial folder stays (no code runs), the next run removes it."""
    earlier = tiny_result(seed=9).save(tmp_path / "res", formats=NONE)
    before = snapshot(earlier)
    script = textwrap.dedent(f"""
        import sys, time
        sys.path[:0] = [{str(Path(__file__).parent)!r}, {str(Path(__file__).parents[1])!r}]
        from test_output_safety import tiny_result
        from wefe_same.output import figures as plots
        plots.score_heatmap = lambda *a, **k: time.sleep(60)
        tiny_result().save({str(earlier)!r}, formats=["svg"])
    """)
    child = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 60
        while not any((p / "rankings.csv").exists() for p in tmp_path.glob(".res.partial-*")):
            assert child.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        child.kill()
        child.wait()
    assert len(leftovers(tmp_path)) == 1 and snapshot(earlier) == before
    result.save(earlier, formats=NONE)
    assert leftovers(tmp_path) == [] and (earlier / "rankings.csv").is_file()


# -- modes, models without values, the other output folders ---------------------------


@pytest.mark.parametrize("umask, dirs, files", [(0o022, 0o755, 0o644), (0o027, 0o750, 0o640)])
def test_files_and_folders_get_the_users_umask(result, tmp_path, umask, dirs, files):
    old = os.umask(umask)
    try:
        out = result.save(tmp_path / "res", formats=NONE)
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == dirs
    for path in out.rglob("*"):
        assert stat.S_IMODE(path.stat().st_mode) == (dirs if path.is_dir() else files), path


def test_a_model_with_only_nan_keeps_its_tables_and_is_a_warning(tmp_path):
    nan_model = tiny_result(models=("a", "b", "empty"), empty=("empty",), object_values=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = nan_model.save(tmp_path / "res", formats=("svg", "png"), figures="all")
    said = [str(w.message) for w in caught if issubclass(w.category, WefeSameWarning)]
    assert "figures scores_WEAT, scores_SAME: no values for model 'empty'; shown as missing" in said
    assert "figure most_biased_words_empty: no per-word SAME values for model 'empty'; left out" in said
    assert any(s.startswith("figure accumulated_rankings: no rank for WEAT, SAME for model 'empty'") for s in said)
    manifest = json.loads((out / MANIFEST).read_text())
    assert set(said) <= set(manifest["warnings"])
    rankings = pd.read_csv(out / "rankings.csv", index_col=0)
    assert list(rankings.index) == ["a", "b", "empty"] and rankings.loc["empty"].isna().all()
    details = pd.read_csv(out / "details.csv.gz")
    assert (details.loc[details["model"] == "empty", "reason"] == "no word left").all()
    figures = {p.name for p in (out / "figures").iterdir()}
    assert {"most_biased_words_a.svg", "most_biased_words_a.png", "scores_WEAT.png"} <= figures
    assert not any(name.startswith("most_biased_words_empty") for name in figures)


def test_write_folder_serves_other_commands_and_keeps_kinds_apart(tmp_path):
    def write(folder: Path) -> None:
        (folder / "quality.csv").write_text("model,score\na,0.5\n")

    out = write_folder(tmp_path / "q", write, {"benchmarks": ["ws353"]}, kind="quality")
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["kind"] == "quality" and manifest["benchmarks"] == ["ws353"]
    assert manifest["files"]["quality.csv"] == hashlib.sha256((out / "quality.csv").read_bytes()).hexdigest()
    assert write_folder(out, write, {}, kind="quality") == out  # replaced
    with pytest.raises(OutputError, match=rf"^output {out} holds wefe-same quality output, not results"):
        check_output(out)
    assert check_output(tmp_path / "new", kind="audit") == (tmp_path / "new").resolve()


def test_figure_workers_give_the_same_bytes_and_never_rerun_the_users_script(tmp_path):
    """Worker processes draw the same bytes; a script without a ``__main__`` guard runs once
    (a "forkserver"/"spawn" worker would otherwise run it again before its first figure)."""
    log = tmp_path / "runs.log"
    script = tmp_path / "unguarded.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(Path(__file__).parent)!r}, {str(Path(__file__).parents[1])!r}]
        from test_output_safety import tiny_result
        with open({str(log)!r}, "a") as fh:
            fh.write("ran\\n")
        tiny_result().save({str(tmp_path / "one")!r}, formats=("svg",), figures="all")
        tiny_result().save({str(tmp_path / "two")!r}, formats=("svg",), figure_workers=2, figures="all")
    """))
    subprocess.run([sys.executable, str(script)], check=True, cwd=tmp_path, timeout=120)
    assert log.read_text() == "ran\n"
    one, two = tmp_path / "one", tmp_path / "two"
    assert json.loads((two / MANIFEST).read_text())["warnings"] == []  # no worker failed
    figures = sorted(p.name for p in (one / "figures").iterdir())
    assert len(figures) == 7 and figures == sorted(p.name for p in (two / "figures").iterdir())
    for name in figures:
        assert (one / "figures" / name).read_bytes() == (two / "figures" / name).read_bytes(), name


def test_a_table_that_fails_while_the_figure_workers_draw_stops_them_and_leaves_nothing(tmp_path, monkeypatch):
    """Figures are drawn in the workers while the CSV tables are written: when writing a
    table fails, the error reaches the caller, the workers stop, no folder is left."""
    earlier = tiny_result(seed=9).save(tmp_path / "res", formats=NONE)
    before = snapshot(earlier)
    pools = []
    start_pool = rendering._pool
    monkeypatch.setattr(rendering, "_pool", lambda workers: pools.append(start_pool(workers)) or pools[-1])

    def disk_full(result, folder, **options):
        assert len(pools) == 1  # the workers were started before the first table
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report, "write_csv_tables", disk_full)
    with pytest.raises(OSError, match="No space left"):
        tiny_result().save(tmp_path / "res", formats=("svg", "png"), figure_workers=2, figures="all")
    assert snapshot(earlier) == before and leftovers(tmp_path) == []
    with pytest.raises(RuntimeError, match="after shutdown"):  # the pool was shut down
        pools[0].submit(print)


def test_the_word_table_is_written_by_a_thread_and_its_failure_leaves_nothing(tmp_path, monkeypatch):
    """The word-level table is written beside the other tables and the figures; a failure
    there reaches the caller and the earlier folder stays as it was, with no staging left."""
    import threading

    threads = []
    write_word_table = report.write_word_table

    def spy(result, folder, **options):
        threads.append(threading.current_thread() is threading.main_thread())
        return write_word_table(result, folder, **options)

    monkeypatch.setattr(report, "write_word_table", spy)
    earlier = tiny_result(seed=9).save(tmp_path / "res", formats=NONE)
    assert threads == [False] and (earlier / "word_bias.parquet").is_file()
    before = snapshot(earlier)

    def disk_full(result, folder, **options):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report, "write_word_table", disk_full)
    with pytest.raises(OSError, match="No space left"):
        tiny_result().save(tmp_path / "res", formats=NONE)
    assert snapshot(earlier) == before and leftovers(tmp_path) == []
