"""Writes ``data/crows_oracle_fixture.json``: CrowS-Pairs sentence scores and metric scores
computed by the authors' own code on the tiny float64 BERT of ``tests/tiny_lms.py``.

Nothing of the authors' repositories is copied into this one: the script reads their files
from fetched git directories (``git show COMMIT:PATH``) and executes them unedited:

- nyu-mll/crows-pairs ``metric.py`` (Nangia et al. 2020): its imports and function
  definitions; the module-level argument parsing and its ``evaluate(args)`` call are
  skipped, and ``evaluate`` is then called with a namespace of the three arguments.
  ``BertTokenizer`` / ``BertForMaskedLM`` in its namespace are replaced by loaders whose
  ``from_pretrained`` returns the tiny model (``--lm_model bert``: uncased, as the tiny
  tokenizer is).
- McGill-NLP/bias-bench ``bias_bench/benchmark/crows/crows.py`` (Meade et al. 2022): the
  whole module; ``CrowSPairsRunner`` is built as ``experiments/crows.py`` builds it (its
  model and tokenizer are the tiny ones instead of ``from_pretrained``), once per bias type
  (its ``_likelihood_score`` asserts that every pair read has the runner's bias type, so
  bias-bench has no run over all types).

Shims, each for an API that today's libraries removed: ``pandas.DataFrame.append``
(removed in pandas 2.0; both codes build their tables with it) → ``pandas.concat``. The
shim also records each row appended, which is how the per-pair ``score`` (1 when the pair
counts for the metric) is read. The unrounded sentence scores are recorded by wrapping the
scoring functions (``mask_unigram`` in metric.py, ``CrowSPairsRunner._average_log_probability``
in bias-bench) with recorders that call the original and keep a copy of what it returns
(metric.py rounds the returned dict in place).

Usage (from the repository root; the fetched git directories are not part of it)::

    PYTHONPATH=$PWD python tests/likelihood/make_crows_fixture.py \\
        --crows-pairs /work/.mirror/nyu-mll+crows-pairs/repo \\
        --bias-bench /work/.mirror/McGill-NLP+bias-bench/repo
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
INPUT = HERE / "data" / "crows_pairs_first200.csv"
OUTPUT = HERE / "data" / "crows_oracle_fixture.json"
CROWS_COMMIT = "8aaac11c485473159ec9328a65253a5be9a479dc"
BIAS_BENCH_COMMIT = "291426aab926f78ecfc7bd040b531429ee8123e0"
METRIC_PY = "metric.py"
CROWS_PY = "bias_bench/benchmark/crows/crows.py"
#: (name, builder in tests/tiny_lms.py, description) of each model the codes are run on.
MODELS = (
    ("bert-wordpiece", "build_bert", "tests/tiny_lms.py build_bert(seed=0): BertForMaskedLM, 2 layers, hidden 32, "
     "float64, the BERT uncased WordPiece vocabulary"),
    ("bert-char", "build_char_bert", "tests/tiny_lms.py build_char_bert(seed=0): the same on the single-character "
     "tokens of that vocabulary (the order of an antistereo pair changes its alignment on 5 of the 200 pairs)"),
)


def git_show(git_dir: str, commit: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def git_blob(git_dir: str, commit: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, "rev-parse", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout.strip()


def load_module(source: str, name: str, *, skip_names: tuple[str, ...] = (), extra: dict | None = None) -> dict:
    """Executes ``source``'s module-level statements but those that mention one of
    ``skip_names`` (metric.py's ``parser`` / ``args``), in a fresh namespace (holding ``extra``)."""
    tree = ast.parse(source)
    kept = [node for node in tree.body
            if not any(isinstance(n, ast.Name) and n.id in skip_names for n in ast.walk(node))
            or isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    ns: dict = {"__name__": name.replace("/", ".").removesuffix(".py"), **(extra or {})}
    exec(compile(ast.Module(body=kept, type_ignores=[]), name, "exec"), ns)
    return ns


class AppendShim:
    """``DataFrame.append(row_dict, ignore_index=True)`` as pandas < 2 did it, recording rows."""

    def __init__(self):
        self.rows: list[dict] = []

    def scored(self) -> list[dict]:
        """The rows of the score table (those with a ``score``; ``read_data``'s rows have none)."""
        return [r for r in self.rows if "score" in r]

    def __enter__(self):
        import pandas as pd

        shim = self

        def append(frame, other, ignore_index=False):
            shim.rows.append(dict(other))
            return pd.concat([frame, pd.DataFrame([other])], ignore_index=ignore_index)

        self._had = hasattr(pd.DataFrame, "append")
        self._old = getattr(pd.DataFrame, "append", None)
        pd.DataFrame.append = append
        return self

    def __exit__(self, *exc):
        import pandas as pd

        if self._had:
            pd.DataFrame.append = self._old
        else:
            del pd.DataFrame.append


def columns(records: list[dict]) -> dict[str, list]:
    """Records → one list per key (a compact fixture)."""
    return {key: [r[key] for r in records] for key in records[0]}


def pretrained(obj):
    """A stand-in for a transformers class whose ``from_pretrained`` returns ``obj``."""
    return types.SimpleNamespace(from_pretrained=lambda *a, **k: obj)


def printed(text: str, label: str) -> float | None:
    m = re.search(rf"^{re.escape(label)}:?\s+(\S+)", text, re.M)
    return float(m.group(1)) if m else None


def run_metric_py(git_dir: str, commit: str, model, tokenizer, rows: list[dict]) -> dict:
    ns = load_module(git_show(git_dir, commit, METRIC_PY), f"nyu-mll/crows-pairs@{commit}:{METRIC_PY}",
                     skip_names=("parser", "args"))
    ns["BertTokenizer"], ns["BertForMaskedLM"] = pretrained(tokenizer), pretrained(model)
    scores: list[dict] = []
    original = ns["mask_unigram"]

    def mask_unigram(data, lm, n=1):
        got = original(data, lm, n)
        scores.append(copy.deepcopy(got))  # evaluate() rounds the returned dict in place
        return got

    ns["mask_unigram"] = mask_unigram
    with tempfile.TemporaryDirectory() as tmp, AppendShim() as shim, contextlib.chdir(tmp):
        args = argparse.Namespace(input_file=str(INPUT), lm_model="bert", output_file="out.csv")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            ns["evaluate"](args)
    text = out.getvalue()
    appended = shim.scored()
    assert len(scores) == len(rows) == len(appended)
    pairs = columns([{"row": k, "direction": r["stereo_antistereo"], "sent1_score": s["sent1_score"],
                      "sent2_score": s["sent2_score"], "score": int(a["score"])}
                     for k, (r, s, a) in enumerate(zip(rows, scores, appended))])
    return {"repository": "nyu-mll/crows-pairs", "commit": commit, "file": METRIC_PY,
            "blob": git_blob(git_dir, commit, METRIC_PY),
            "functions": ["read_data", "get_log_prob_unigram", "get_span", "mask_unigram", "evaluate"],
            "pairs": pairs,
            "metric_score_printed": printed(text, "Metric score"),
            "stereotype_score_printed": printed(text, "Stereotype score"),
            "antistereotype_score_printed": printed(text, "Anti-stereotype score"),
            "n_printed": printed(text, "Total examples"),
            "stdout": text.strip().splitlines()}


def run_bias_bench(git_dir: str, commit: str, model, tokenizer, rows: list[dict]) -> dict:
    ns = load_module(git_show(git_dir, commit, CROWS_PY), f"McGill-NLP/bias-bench@{commit}:{CROWS_PY}")
    runner_cls = ns["CrowSPairsRunner"]
    by_row: dict[int, dict] = {}
    by_type: dict[str, dict] = {}
    for bias_type in dict.fromkeys(r["bias_type"] for r in rows):
        runner = runner_cls(model=model, tokenizer=tokenizer, input_file=str(INPUT), bias_type=bias_type,
                            is_generative=False)
        calls: list[float] = []
        original = runner._average_log_probability

        def average(token_ids, spans, _original=original, _calls=calls):
            got = _original(token_ids, spans)
            _calls.append(float(got))
            return got

        runner._average_log_probability = average
        out = io.StringIO()
        with AppendShim() as shim, contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            metric = runner()
        text = out.getvalue()
        skipped = {int(m) for m in re.findall(r"^Skipping example (\d+)\.", text, re.M)}
        members = [k for k, r in enumerate(rows) if r["bias_type"] == bias_type]  # df index = position among them
        scored = [k for i, k in enumerate(members) if i not in skipped]
        appended = shim.scored()
        assert len(calls) == 2 * len(scored) and len(appended) == len(scored)
        for j, k in enumerate(scored):
            by_row[k] = {"sent1_score": calls[2 * j], "sent2_score": calls[2 * j + 1],
                         "score": int(appended[j]["score"])}
        for i in skipped:
            by_row[members[i]] = {"sent1_score": None, "sent2_score": None, "score": None}
        by_type[bias_type] = {"metric_score_returned": metric, "n_printed": printed(text, "Total examples"),
                              "stdout": text.strip().splitlines()}
    pairs = columns([{"row": k, "direction": r["stereo_antistereo"], **by_row[k]} for k, r in enumerate(rows)])
    return {"repository": "McGill-NLP/bias-bench", "commit": commit, "file": CROWS_PY,
            "blob": git_blob(git_dir, commit, CROWS_PY),
            "functions": ["CrowSPairsRunner._read_data", "CrowSPairsRunner._likelihood_score",
                          "CrowSPairsRunner._average_log_probability", "_get_span"],
            "run": "CrowSPairsRunner(model, tokenizer, input_file, bias_type=T, is_generative=False)() "
                   "once per bias type T in order of first appearance, as experiments/crows.py builds it",
            "pairs": pairs, "by_bias_type": by_type}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crows-pairs", required=True, help="git dir of nyu-mll/crows-pairs (fetched)")
    parser.add_argument("--crows-pairs-commit", default=CROWS_COMMIT)
    parser.add_argument("--bias-bench", required=True, help="git dir of McGill-NLP/bias-bench (fetched)")
    parser.add_argument("--bias-bench-commit", default=BIAS_BENCH_COMMIT)
    parser.add_argument("--out", default=str(OUTPUT))
    args = parser.parse_args(argv)

    sys.path.insert(0, str(HERE.parent))
    import numpy as np
    import pandas as pd
    import torch
    import transformers

    torch.set_num_threads(1)
    with open(INPUT, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    runs = {}
    import tiny_lms

    for name, builder, what in MODELS:
        model, tokenizer = getattr(tiny_lms, builder)()
        runs[name] = {"model": what,
                      "metric_py": run_metric_py(args.crows_pairs, args.crows_pairs_commit, model, tokenizer, rows),
                      "bias_bench": run_bias_bench(args.bias_bench, args.bias_bench_commit, model, tokenizer, rows)}
    doc = {
        "what": "CrowS-Pairs sentence scores (unrounded) and metric scores computed by the authors' code, "
                "executed unedited by tests/likelihood/make_crows_fixture.py",
        "input": {"file": "tests/likelihood/data/crows_pairs_first200.csv",
                  "sha256": hashlib.sha256(INPUT.read_bytes()).hexdigest(), "pairs": len(rows),
                  "origin": f"first 200 pairs of nyu-mll/crows-pairs@{CROWS_COMMIT} data/crows_pairs_anonymized.csv "
                            "(CC BY-SA 4.0, Nangia et al. 2020)"},
        "sent1_sent2": "as both codes read a pair: sent1 = sent_more, sent2 = sent_less for 'stereo'; "
                       "sent1 = sent_less, sent2 = sent_more for 'antistereo'",
        "pairs": "per pair, in file order (row = 0-based row of the input); sent1_score / sent2_score are "
                 "the unrounded values returned by their scoring function, null where bias-bench skips the pair; "
                 "score is their per-pair 1/0 (the row's 'score' in their table)",
        "shims": {"pandas.DataFrame.append": "removed in pandas 2.0; pandas.concat([frame, DataFrame([row])])"},
        "environment": {"python": sys.version.split()[0], "torch": torch.__version__,
                        "transformers": transformers.__version__, "pandas": pd.__version__, "numpy": np.__version__},
        "runs": runs,
    }
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
