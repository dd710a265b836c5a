"""The command line: the results folder contract and one-line errors with exit code 2."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import GENDER_WORDS, write_glove

from wefe_same import METRICS
from wefe_same.cli import main

QUERY = """
[meta]
name = "mini"
[sets.male]
words = ["he", "man"]
source = "test"
[sets.female]
words = ["she", "woman"]
source = "test"
[sets.career]
words = ["doctor", "engineer"]
source = "test"
[sets.care]
words = ["nurse", "teacher"]
source = "test"
[[queries]]
targets = ["male", "female"]
attributes = ["career", "care"]
"""

CONTRACT = ["aggregates.csv", "rankings.csv", "correlations.csv", "details.csv.gz", "manifest.json",
            "figures/correlations.png", "figures/correlations.pdf"]


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    models = [str(write_glove(tmp_path / f"m{i}.txt", GENDER_WORDS, rng.normal(size=(12, 6))))
              for i in range(4)]
    query = tmp_path / "mini.toml"
    query.write_text(QUERY)
    return models, str(query)


def assert_figure_not_blank(path):
    import matplotlib.image as mpimg

    pixels = mpimg.imread(path)[..., :3]
    assert pixels.std() > 0.05 and len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50


def assert_contract(out, n_models, metrics, formats=("png", "pdf")):  # the default formats
    names = [n for n in CONTRACT if not n.startswith("figures/")] + [f"figures/correlations.{f}" for f in formats]
    for name in names + [f"scores/{m}.csv" for m in metrics]:
        assert (out / name).is_file(), name
    rankings = pd.read_csv(out / "rankings.csv", index_col="model")
    assert len(rankings) >= n_models and list(rankings.columns) == metrics
    details = pd.read_csv(out / "details.csv.gz")
    assert list(details.columns[:8]) == ["model", "metric", "query_set", "subquery", "value",
                                         "words_found", "missing_words", "reason"]
    assert details["value"].notna().any()
    corr = pd.read_csv(out / "correlations.csv", index_col=0)
    assert list(corr.columns) == metrics
    manifest = json.loads((out / "manifest.json").read_text())
    assert {"versions", "seed", "models", "queries", "wall_time_seconds"} <= set(manifest)
    assert all(len(m["fingerprint_sha256"]) == 64 for m in manifest["models"])
    assert all(len(q["sha256"]) == 64 for q in manifest["queries"])
    assert_figure_not_blank(out / "figures" / "correlations.png")
    if "pdf" in formats:
        assert (out / "figures" / "correlations.pdf").read_bytes().startswith(b"%PDF")
    assert not any((out / "figures").glob("*.svg")) or "svg" in formats


def test_rank_writes_the_whole_folder(files, tmp_path, capsys):
    models, query = files
    out = tmp_path / "res"
    assert main(["rank", "--models", *models, "--queries", query, "--out", str(out), "--seed", "3"]) == 0
    metrics = list(METRICS)
    assert_contract(out, 4, metrics)
    assert "Rankings (1 = least biased" in capsys.readouterr().out
    # Rewriting replaces the folder atomically and leaves no partial folder behind.
    assert main(["rank", "--models", *models, "--queries", query, "--out", str(out),
                 "--metrics", "WEAT", "SAME"]) == 0
    assert sorted(p.name for p in (out / "scores").iterdir()) == ["SAME.csv", "WEAT.csv"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def religion_without_lexicons(path):
    """The case study's religion query set without the two sentiment lexicons (6,789 words,
    most of a default run's time in the encoders and RNSB) and the three queries that use
    them: 6 queries on 70 words, 'christian_related_words' (which word2vec loses) kept."""
    import tomllib

    from wefe_same.query.files import _bundled_dir

    data = tomllib.loads((_bundled_dir() / "religion.toml").read_text(encoding="utf-8"))
    lexicons = {"positive_words", "negative_words"}
    lines = ["[meta]", 'name = "religion"']
    for name, spec in data["sets"].items():
        if name not in lexicons:
            lines += [f"[sets.{name}]", f"words = {json.dumps(spec['words'])}",
                      f"aligned = {json.dumps(spec.get('aligned', False))}"]
    for q in data["queries"]:
        if not lexicons & set(q["attributes"]):
            lines += ["[[queries]]", f"name = {json.dumps(q['name'])}", f"targets = {json.dumps(q['targets'])}",
                      f"attributes = {json.dumps(q['attributes'])}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_default_run_on_the_builtin_models(tmp_path):
    """The README's run command on a trimmed query set: every installed catalog model (static,
    debiased variants and encoders, ranked together), all metrics, the religion queries
    without the sentiment lexicons. The full default run (25 queries) is timed by
    benchmarks/bench_default_run.py; its queries are checked below without models."""
    from wefe_same.models.catalog import default_models

    out = tmp_path / "results"
    assert main(["rank", "--out", str(out), "--formats", "png",
                 "--queries", religion_without_lexicons(tmp_path / "religion.toml")]) == 0
    metrics = list(METRICS)
    models = default_models()
    assert {"glove-6b-50d", "word2vec-gnews-weat", "minilm-l6-v2", "paraphrase-minilm-l3-v2"} <= set(models)
    assert_contract(out, len(models), metrics, formats=("png",))
    rankings = pd.read_csv(out / "rankings.csv", index_col="model")
    assert list(rankings.index) == models
    scores = pd.read_csv(out / "scores" / "WEAT.csv", index_col="model")
    assert scores.shape == (len(models), 6)
    # Encoders have an open vocabulary: every subquery is defined. The static models may lose
    # words (the WEAT subset of word2vec lacks one of 3 'christian_related_words'), with the reason.
    assert scores.loc[["minilm-l6-v2", "paraphrase-minilm-l3-v2", "glove-6b-50d"]].notna().all().all()
    assert scores.loc["word2vec-gnews-weat"].isna().any()
    details = pd.read_csv(out / "details.csv.gz")
    assert details.loc[details["value"].isna() & (details["metric"] == "WEAT"), "reason"].str.contains("lost").all()
    assert {c.split(":")[0] for c in scores.columns} == {"religion"}


def test_the_default_run_ranks_the_25_case_study_queries():
    """What the full default run scores, without models: the CLI's default --queries are
    gender, ethnicity and religion, whose (2, 2) subqueries are the 25 queries of the WEFE
    case study (7 + 9 + 9)."""
    from wefe_same.cli import build_parser
    from wefe_same.query import load_queries
    from wefe_same.query.expand import expand_query

    args = build_parser().parse_args(["rank"])
    assert args.queries == ["gender", "ethnicity", "religion"]
    columns = [s.column for s in expand_query(load_queries(args.queries), METRICS["WEAT"])]
    assert len(columns) == 25
    assert sorted({c.split(":")[0] for c in columns}) == ["ethnicity", "gender", "religion"]


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "wefe_same.cli", *args],
                          capture_output=True, text=True, timeout=300)


def bad_file(tmp_path, text):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (lambda f, t: ["--models", "nosuchmodel"], "unknown model 'nosuchmodel'; valid models are: "),
        (lambda f, t: ["--metrics", "WAET"], "unknown metric 'WAET'; valid metrics are: "),
        (lambda f, t: ["--queries", "gendr"], "unknown query set 'gendr'"),
        (lambda f, t: ["--queries", bad_file(t, QUERY.replace('"care"]', '"cares"]'))],
         "bad.toml: query '#1' names unknown set 'cares'"),
        (lambda f, t: ["--queries", bad_file(t, "[meta\n")], "bad.toml: malformed TOML"),
        (lambda f, t: ["--queries", bad_file(t, QUERY.replace('"doctor", "engineer"', '"doctor", "doctor"'))],
         "bad.toml: set 'career': word 'doctor' appears twice"),
        (lambda f, t: ["--queries", f[1], "--metrics", "RNSB", "--models", "x=glove:/no/such/file.txt"],
         "model 'x': no such file /no/such/file.txt"),
        # One attribute set: WEAT's template (2, 2) fits no query.
        (lambda f, t: ["--queries", bad_file(t, QUERY.replace('["career", "care"]', '["career"]')),
                       "--metrics", "WEAT"], "metric 'WEAT' takes queries of template (2, 2), and no query fits"),
        (lambda f, t: ["--seed", "abc"], "argument --seed: invalid int value: 'abc'"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(files, tmp_path, args, message, capsys):
    # main() in this process (a process per case cost ~1 s of imports each); the process
    # itself, its exit status and stderr, in test_bad_input_of_the_wefe_same_process
    models, _ = files
    argv = args(files, tmp_path)
    if "--models" not in argv:
        argv += ["--models", *models]
    try:
        code = main(["rank", "--out", str(tmp_path / "never"), *argv])
    except SystemExit as exit_:  # argparse's own errors leave from inside the parser
        code = exit_.code
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert message in captured.err
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err + captured.out
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["--metrics", "WAET"], "unknown metric 'WAET'; valid metrics are: "),  # the package's error family
    (["--seed", "abc"], "argument --seed: invalid int value: 'abc'"),  # argparse's
])
def test_bad_input_of_the_wefe_same_process(files, tmp_path, argv, message):
    models, _ = files
    proc = run_cli("rank", "--out", str(tmp_path / "never"), "--models", *models, *argv)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert not (tmp_path / "never").exists()


def test_listing_commands(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "glove-6b-50d+hard-debias" in out and "yes" in out
    assert main(["metrics"]) == 0
    assert "DirectBias" in capsys.readouterr().out
    assert main(["queries"]) == 0
    assert "gender" in capsys.readouterr().out
