"""The option space: every documented value of every option of ``wefe-same rank`` and of
each subcommand, crossed pairwise with the others on a tiny run (issue 27).

The options are read from the argument parser (and, for ``rank``, from the fields of
``RankConfig`` that only the Python API takes), so a new option joins by itself: a choice
or a flag brings its values; any other option must be given sample values in
:data:`SAMPLES` (the test that every option has values fails until it is). Each row of an
all-pairs covering array (every pair of values of two options is in some row; not the
full product) is one in-process call of the CLI's ``main`` on tiny models: two tied
static models, a debiased variant (``+hard-debias``) and a tiny BERT.

Values that cost the most (:data:`ALONE`) are tried once each, on a row of their own; pairs
of values that cost the most together (:data:`COSTLY_TOGETHER`) share a row only where a
pair the covering array must cover needs both.
Values that must be refused (``--device cuda`` without a CUDA device, a scheduler that
does not answer, a cap of one subquery) and pairs that exclude each other (contexts with
templates, ``--higher-is-better`` without an external table, ``--vary`` without an
``hf:`` model) are tried once each, on rows of their own, and must exit 2 with one line;
every other row must exit 0 with a complete results folder. No row may print a
traceback.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest
from conftest import GENDER_WORDS, MINI_QUERY, error_lines, write_glove
from tiny_transformers import build

from wefe_same.cli import build_parser, main
from wefe_same.options.groups import GROUPS, flat_keywords
from wefe_same.output.folder import inventory, read_manifest
from wefe_same.run import config as run_config

#: Sample values (argument lists; None: the option left out) of the options that are not a
#: choice or a flag. ``{bert}`` is the tiny BERT's folder, ``{out}`` a fresh path per row.
MODELS = {"tied": ["a.txt", "t.txt", "c.txt"], "debiased": ["a.txt", "t.txt", "a.txt+hard-debias", "c.txt"],
          "encoder": ["a.txt", "c.txt", "hf:{bert}"]}
SAMPLES: dict[str, list[list[str] | None]] = {
    "models": [["--models", *m] for m in MODELS.values()],
    "templates": [None, ["--template", "This is a {word}."]],
    "template_set": [None, ["--templates", "seat"], ["--templates", "templates.txt"]],
    "contexts": [None, ["--contexts", "contexts.txt"]],
    "contexts_per_word": [None, ["--contexts-per-word", "2"]],
    "queries": [["--queries", "mini.toml"], ["--queries", "gender"]],
    "metrics": [None, ["--metrics", "WEAT", "RND", "DirectBias"]],
    "metric_options": [None, ["--metric-option", "DirectBias.k=1"]],
    "seed": [None, ["--seed", "7"]],
    "missing_threshold": [None, ["--missing-threshold", "0"], ["--missing-threshold", "1"]],
    "max_subqueries": [None, ["--max-subqueries", "1"]],
    "permutations": [None, ["--permutations", "0"]],
    "correlation_resamples": [None, ["--correlation-resamples", "1000"]],
    "bootstrap": [None, ["--bootstrap", "20"]],
    "bootstrap_words": [None, ["--bootstrap-words", "10"]],
    "halves": [None, ["--halves", "4"]],
    "chance": [None, ["--chance", "3"]],
    "split_halves": [None, ["--split-halves", "2"]],
    "quality": [None, ["--quality", "ws353", "simlex999", "google"]],
    "benchmarks": [None, ["--benchmarks", "ws353"]],
    "analogy_vocab": [None, ["--analogy-vocab", "5"]],
    "external": [None, ["--external", "external.csv"]],
    "vary": [None, ["--vary", "pooling=mean,cls"]],
    "higher_is_better": [None, ["--higher-is-better", "downstream"]],
    "out": [["--out", "{out}"]],
    "formats": [None, ["--formats", "svg"], ["--formats", "png", "pdf", "svg"]],
    "workers": [None, ["--workers", "2"]],
    "scheduler": [None, ["--scheduler", "tcp://127.0.0.1:9"]],
    "cache": [None, ["--cache", "cache"]],
    "models_file": [None, ["--models-file", "zoo.toml"]],
    "lipstick": [None, ["--lipstick", "words=2", "train=2", "test=1", "neighbours=1", "neighbour_words=2"]],
    "likelihood": [None, ["--likelihood", "crows-pairs=crows.csv"]],
    # export, audit, report
    "spec": [["a.txt"], ["a.txt+hard-debias"], ["hf:{bert}"]],
    "words": [["--words", "words.txt"]],
    "model": [None, ["--model", "a.txt"]],
    "dim": [None, ["--dim", "8"]],
    "results": [["results"]],
}
#: Options of ``quality`` whose values differ from rank's option of the same name.
SAMPLES_BY_COMMAND: dict[tuple[str, str], list[list[str] | None]] = {
    ("export", "out"): [["--out", "{out}.txt"]],
    ("seat", "models"): [["--models", "hf:{bert}"]],
    ("seat", "tests"): [["--tests", "seat.jsonl"], ["--tests", "seat.jsonl", "seat.jsonl"]],
    ("seat", "out"): [None, ["--out", "{out}.csv"]],
}
#: Options that only the Python API takes (RankConfig's fields, the groups' fields by their flat
#: keywords): set in the namespace the CLI builds its config from.
API_SAMPLES: dict[str, list[object]] = {"progress": [None, False, True]}

#: Values refused on their own (each tried once, with every other option at its first value).
REFUSED = {("device", "cuda"): "CUDA", ("max_subqueries", "1"): "subqueries",
           ("scheduler", "tcp://127.0.0.1:9"): "scheduler"}
#: Values that cost the most (a bundled query set of hundreds of subqueries; SEAT's templates
#: times a benchmark's vocabulary): each tried once, on a row of its own that must finish,
#: beside every other option's first value; not crossed pairwise, so the suite stays within
#: its two minutes.
ALONE = {("queries", "gender"), ("template_set", "seat")}
#: Pairs of values that cost the most together: the tiny BERT among the models of a run with
#: two worker processes (each worker that reads an encoder imports torch and transformers,
#: ~4 s of CPU). The covering array puts them in one row only where it must (a pair such as
#: ``--vary`` with ``--workers 2`` needs the encoder), every pair still covered.
COSTLY_TOGETHER = {(("models", "hf:{bert}"), ("workers", "2"))}


def _costly(row: dict[str, list[str] | None]) -> int:
    """How many pairs of :data:`COSTLY_TOGETHER` ``row`` holds."""
    return sum(all(row.get(dest) is not None and row[dest][-1] == value for dest, value in pair)
               for pair in COSTLY_TOGETHER)


def _excluded(row: dict[str, list[str] | None]) -> str | None:
    """Why two values of ``row`` exclude each other (their row is refused), or None."""
    def given(dest: str) -> bool:
        return row.get(dest) is not None

    if given("contexts") and (given("templates") or given("template_set")):
        return "exclude each other"
    if given("templates") and given("template_set"):
        return "exclude each other"
    if given("lipstick") and given("no_lipstick"):
        return "exclude each other"
    if given("higher_is_better") and not given("external"):
        return "no external table"
    if given("likelihood_scoring") and row["likelihood_scoring"][1:] != ["authors"] and not given("likelihood"):
        return "no likelihood benchmark"
    if given("vary") and "models" in row and not any("hf:" in t for t in row["models"] or ()):
        return "needs at least one hf: model"
    return None


# ----------------------------------------------------------------------------- the options
def _subparsers() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _values(command: str, action: argparse.Action) -> list[list[str] | None] | None:
    """The documented values of one option as argument lists, None when it has no samples."""
    flag = action.option_strings[0] if action.option_strings else None
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        return [None, [flag]]  # type: ignore[list-item]
    if action.choices is not None:
        return [[flag, str(c)] if flag else [str(c)] for c in action.choices]
    return SAMPLES_BY_COMMAND.get((command, action.dest), SAMPLES.get(action.dest))


def option_space(command: str) -> list[tuple[str, list[list[str] | None]]]:
    actions = [a for a in _subparsers()[command]._actions if a.dest != "help"]
    return [(a.dest, _values(command, a)) for a in actions]  # type: ignore[misc]


def test_every_option_of_every_command_has_documented_values():
    missing = [f"{command} {dest}" for command in _subparsers() for dest, values in option_space(command)
               if not values]
    assert missing == [], f"give these options sample values in SAMPLES: {missing}"
    cli = {dest for dest, _ in option_space("rank")}
    own = [f.name for f in fields(run_config.RankConfig) if f.name not in GROUPS and f.name != "_"]
    api_only = [name for name in [*own, *flat_keywords()] if name not in cli]
    assert sorted(api_only) == sorted(API_SAMPLES), "give RankConfig's API-only fields values in API_SAMPLES"


# ----------------------------------------------------------------------------- all pairs
def all_pairs(space: list[tuple[str, list]], candidates: int = 30) -> list[dict[str, int]]:
    """Rows (option → value index) in which every pair of values of two options occurs,
    skipping pairs that exclude each other. Greedy as in AETG (Cohen et al. 1997): each
    row is the best of ``candidates`` rows built from an uncovered pair in a random option
    order (seeded: the same rows every time). The uncovered pairs are kept twice: as a set
    (the random pick) and as a matrix over every (option, value), whose sums count what a
    value would cover (the collection of every test process builds these rows)."""
    names = [n for n, _ in space]
    sizes = {n: len(v) for n, v in space}
    values = dict(space)
    rng = np.random.default_rng(0)
    first = dict(zip(names, np.cumsum([0] + [sizes[n] for n in names[:-1]]).tolist()))  # global id of value 0

    def fits(row: dict[str, int]) -> bool:
        return _excluded({n: values[n][i] for n, i in row.items()}) is None

    def costly(row: dict[str, int]) -> int:
        return _costly({n: values[n][i] for n, i in row.items()})

    position = {n: k for k, n in enumerate(names)}

    def key(m: str, i: int, n: str, j: int) -> tuple[str, int, str, int]:
        return (m, i, n, j) if position[m] < position[n] else (n, j, m, i)

    uncovered = {(a, i, b, j) for a, b in itertools.combinations(names, 2)
                 for i in range(sizes[a]) for j in range(sizes[b]) if fits({a: i, b: j})}
    open_pair = np.zeros((sum(sizes.values()),) * 2, dtype=np.int64)  # 1 where the pair is uncovered
    for a, i, b, j in uncovered:
        open_pair[first[a] + i, first[b] + j] = open_pair[first[b] + j, first[a] + i] = 1
    rows = [] if uncovered else [dict.fromkeys(names, 0)]  # no pair to cover (one option, or none): one row
    while uncovered:
        best: tuple[tuple[int, int], dict[str, int]] | None = None
        ordered = sorted(uncovered)  # the same for every candidate of this row
        for c in range(candidates):
            a, i, b, j = ordered[0] if c == 0 else ordered[rng.integers(len(ordered))]
            row = {a: i, b: j}
            order = [n for n in names if n not in row]
            if c:
                rng.shuffle(order)
            # newly[g]: uncovered pairs value g would make with the values chosen so far
            newly = open_pair[first[a] + i] + open_pair[first[b] + j]
            for n in order:
                choices = [v for v in range(sizes[n]) if fits({**row, n: v})]
                # a costly pair only when no other value fits
                row[n] = max(choices, key=lambda v, n=n, row=row: (-costly({**row, n: v}), newly[first[n] + v], -v))
                newly += open_pair[first[n] + row[n]]
            ids = [first[n] + row[n] for n in names]
            gained = int(open_pair[np.ix_(ids, ids)].sum()) // 2
            if best is None or (-costly(row), gained) > best[0]:
                best = ((-costly(row), gained), row)
        assert best is not None
        row = best[1]
        for x, y in itertools.combinations(names, 2):
            if key(x, row[x], y, row[y]) in uncovered:
                uncovered.discard(key(x, row[x], y, row[y]))
                open_pair[first[x] + row[x], first[y] + row[y]] = open_pair[first[y] + row[y], first[x] + row[x]] = 0
        rows.append(row)
    return rows


def _rows(command: str) -> list[tuple[str, list[str], dict[str, object], str | None]]:
    """(id, argv, API-only fields, refusal expected or None) of every row of ``command``."""
    space = [(n, [v for v in vs if (n, (v or [None])[-1]) not in REFUSED.keys() | ALONE])
             for n, vs in option_space(command)]
    api = list(API_SAMPLES.items()) if command == "rank" else []
    everything = space + [(f"api:{n}", [[v] for v in vs]) for n, vs in api]
    rows = []
    for k, row in enumerate(all_pairs(everything)):
        chosen = {n: dict(everything)[n][i] for n, i in row.items()}
        rows.append((f"{command}-{k}", chosen, None))
    # each refused value, and each excluded pair, on a row of its own
    first = {n: vs[0] for n, vs in everything}
    for dest, value in sorted(ALONE):
        if dest in first:
            flag = next(a.option_strings[0] for a in _subparsers()[command]._actions if a.dest == dest)
            rows.append((f"{command}-{dest}={value}", {**first, dest: [flag, value]}, None))
    for (dest, value), why in REFUSED.items():
        if dest in first:
            flag = next(a.option_strings[0] for a in _subparsers()[command]._actions if a.dest == dest)
            rows.append((f"{command}-{dest}={value}", {**first, dest: [flag, value]}, why))
    given = [(n, v) for n, vs in everything for v in vs if v]
    for a, va in given:  # a value refused beside every other option's first value
        if _excluded({**first, a: va}):
            rows.append((f"{command}-{a}", {**first, a: va}, _excluded({**first, a: va})))
    for (a, va), (b, vb) in itertools.combinations(given, 2):
        if a != b and _excluded({**first, a: va, b: vb}) and not _excluded({**first, a: va}) \
                and not _excluded({**first, b: vb}):
            rows.append((f"{command}-{a}+{b}", {**first, a: va, b: vb}, _excluded({**first, a: va, b: vb})))
    out = []
    for name, chosen, why in rows:
        argv = [command] + [t for n, v in chosen.items() if v is not None and not n.startswith("api:") for t in v]
        extra = {n[4:]: v[0] for n, v in chosen.items() if n.startswith("api:")}
        out.append((name, argv, extra, why))
    return out


COMMANDS = list(_subparsers())
ROWS = [row for command in COMMANDS for row in _rows(command)]


def test_the_covering_array_covers_every_pair_and_is_far_smaller_than_the_product():
    space = option_space("rank")
    rows = all_pairs(space)
    product = int(np.prod([len(v) for _, v in space], dtype=np.float64))
    assert len(rows) < 60 < product
    for (a, va), (b, vb) in itertools.combinations(space, 2):
        for i, j in itertools.product(range(len(va)), range(len(vb))):
            if _excluded({a: va[i], b: vb[j]}) is None:
                assert any(r[a] == i and r[b] == j for r in rows), (a, va[i], b, vb[j])


# ----------------------------------------------------------------------------- the tiny world
@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Tiny models and inputs: two tied static models, another, a tiny BERT."""
    root = tmp_path_factory.mktemp("space")
    (root / "mini.toml").write_text(MINI_QUERY)
    rng = np.random.default_rng(0)
    write_glove(root / "a.txt", GENDER_WORDS, rng.normal(size=(12, 8)))
    shutil.copy(root / "a.txt", root / "t.txt")  # tied with a.txt under every metric
    write_glove(root / "c.txt", GENDER_WORDS, rng.normal(size=(12, 8)))
    bert = build("bert", root / "bert")
    (root / "templates.txt").write_text("This is a {word}.\nA {word} is here.\n")
    (root / "contexts.txt").write_text("".join(f"The {w} spoke first.\nI met the {w} today.\n"
                                               for w in GENDER_WORDS))
    (root / "words.txt").write_text("he\nshe\nnurse\n")
    (root / "seat.jsonl").write_text(json.dumps({k: {"category": k, "examples": ws} for k, ws in [
        ("targ1", ["nurse", "doctor"]), ("targ2", ["engineer", "person"]), ("attr1", ["he"]), ("attr2", ["she"])]}))
    # rows for the models of every row only (a row for a model not in the run is refused)
    (root / "external.csv").write_text("model,downstream\na,0.1\nc,0.3\n")
    (root / "zoo.toml").write_text('[[models]]\nspec = "c.txt"\nname = "zoo-c"\nsize = 3\n')
    (root / "crows.csv").write_text(",sent_more,sent_less,stereo_antistereo,bias_type\n"
                                    "0,He is a nurse.,She is a nurse.,antistereo,gender\n")
    return root, bert


def _results_for_report(root: Path) -> None:
    """The results folder ``report`` rebuilds its page from (written once per process)."""
    if not (root / "results").exists():
        assert main(["rank", "--models", "a.txt", "c.txt", "--queries", "mini.toml", "--no-cache",
                     "--permutations", "0", "--out", str(root / "results")]) == 0


def _complete(command: str, out: Path) -> None:
    """The folder (or file) a command wrote is whole: its manifest lists every file."""
    if command == "export":
        lines = out.read_text().splitlines()
        n, dim = map(int, lines[0].split())
        assert n == len(lines) - 1 and n >= 1 and dim >= 1
        return
    if command == "report":
        assert (out / "report.html").is_file()
        return
    manifest = read_manifest(out)
    assert manifest is not None, f"{out}: no manifest"
    assert manifest["files"] == inventory(out)
    expected = {"rank": {"rankings.csv", "aggregates.csv", "report.html", "correlations.csv"},
                "robustness": {"rankings.csv", "robustness.csv", "report.html"},
                "quality": {"quality.csv"}, "audit": {"audit.csv"}}[command]
    assert expected <= set(manifest["files"]), sorted(manifest["files"])


@pytest.mark.parametrize(("argv", "extra", "refusal"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_each_row_finishes_whole_or_is_refused_in_one_line(world, argv, extra, refusal, capsys, monkeypatch):
    root, bert = world
    monkeypatch.chdir(root)
    out = root / f"out-{abs(hash(tuple(argv) + tuple(extra.items())))}"
    argv = [t.replace("{bert}", str(bert)).replace("{out}", str(out)) for t in argv]
    if extra:
        built = run_config.RankConfig.from_namespace

        def with_api_fields(args, **overrides):
            vars(args).update(extra)  # a group's field by its flat keyword, as the flags' dest
            return built(args, **overrides)

        monkeypatch.setattr(run_config.RankConfig, "from_namespace", with_api_fields)
    if argv[0] == "report":
        _results_for_report(root)
        capsys.readouterr()
    code = main(argv)
    stdout, err = capsys.readouterr()
    assert "Traceback" not in err + stdout
    if refusal is None:
        assert code == 0, f"wefe-same {' '.join(argv)}\n{err}"
        assert "wefe-same: error" not in err, err
        command = argv[0]
        if command in ("rank", "robustness", "quality", "audit", "export"):
            _complete(command, out if command != "export" else Path(f"{out}.txt"))
        elif command == "report":
            _complete("report", root / "results")
        elif command == "seat":
            assert "effect_size" in stdout and ("--out" not in argv or Path(f"{out}.csv").is_file())
    else:
        assert code == 2, f"wefe-same {' '.join(argv)}\n{err}"
        said = error_lines(err)
        assert len(said) == 1 and said[0].startswith("wefe-same: error: "), err
        assert refusal.lower() in said[0].lower(), said[0]
        assert not out.exists()
