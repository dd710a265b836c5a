"""Writes ``data/stereoset_oracle_fixture.json``: StereoSet intrasentence sentence scores and
ss / lms / icat computed by bias-bench's own code on the tiny models of ``tests/tiny_lms.py``,
for the 30 examples of ``data/stereoset_excerpt.json``.

Executed unedited from a fetched git directory of McGill-NLP/bias-bench (nothing of it is
copied here):

- ``bias_bench/benchmark/stereoset/dataloader.py`` (``StereoSet``, ``IntrasentenceLoader``),
  registered as the module ``bias_bench.benchmark.stereoset.dataloader`` that the others import;
- ``bias_bench/benchmark/stereoset/stereoset.py``: ``StereoSetRunner`` built as
  ``experiments/stereoset.py`` builds it (batch size 1; the tiny model and tokenizer instead
  of ``from_pretrained``), its ``_likelihood_score`` for masked models and
  ``_likelihood_score_generative`` for the causal one;
- ``experiments/stereoset_evaluation.py``: ``ScoreEvaluator`` (its module-level argument
  parsing skipped) on the runner's predictions.

Shim: ``PreTrainedTokenizerBase.encode_plus`` (removed in transformers 5; the loader calls
it with ``pad_to_max_length``, also removed) → calling the tokenizer, ``padding="max_length"``
where ``pad_to_max_length`` is true (never at batch size 1).

Usage (from the repository root)::

    PYTHONPATH=$PWD python tests/likelihood/make_stereoset_fixture.py \\
        --bias-bench /work/.mirror/McGill-NLP+bias-bench/repo
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import math
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from make_crows_fixture import BIAS_BENCH_COMMIT, git_blob, git_show, load_module  # noqa: E402

INPUT = HERE / "data" / "stereoset_excerpt.json"
OUTPUT = HERE / "data" / "stereoset_oracle_fixture.json"
DATALOADER = "bias_bench/benchmark/stereoset/dataloader.py"
RUNNER = "bias_bench/benchmark/stereoset/stereoset.py"
EVALUATION = "experiments/stereoset_evaluation.py"
MODELS = (("bert-wordpiece", "build_bert", "masked"), ("bert-char", "build_char_bert", "masked"),
          ("gpt2", "build_gpt2", "causal"))


def register(name: str, ns: dict) -> None:
    """Puts ``ns`` in ``sys.modules`` as ``name`` (with empty parent packages), so that their
    ``from bias_bench.benchmark.stereoset import dataloader`` finds it."""
    parts = name.split(".")
    for k in range(1, len(parts) + 1):
        sys.modules.setdefault(".".join(parts[:k]), types.ModuleType(".".join(parts[:k])))
    sys.modules[name].__dict__.update(ns)
    for k in range(1, len(parts)):
        setattr(sys.modules[".".join(parts[:k])], parts[k], sys.modules[".".join(parts[:k + 1])])


@contextlib.contextmanager
def encode_plus_shim(tokenizer):
    """``tokenizer.encode_plus(text, pad_to_max_length=..., **kw)`` as transformers 4 had it."""
    def encode_plus(text, text_pair=None, pad_to_max_length=False, **kw):
        return tokenizer(text, text_pair=text_pair, padding="max_length" if pad_to_max_length else False, **kw)

    had = "encode_plus" in vars(tokenizer)
    old = vars(tokenizer).get("encode_plus")
    tokenizer.encode_plus = encode_plus
    try:
        yield tokenizer
    finally:
        if had:
            tokenizer.encode_plus = old
        else:
            del tokenizer.encode_plus


def clean(value):
    """JSON-safe: numpy scalars to float, NaN to None."""
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    value = float(value)
    return None if math.isnan(value) else value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bias-bench", required=True, help="git dir of McGill-NLP/bias-bench (fetched)")
    parser.add_argument("--bias-bench-commit", default=BIAS_BENCH_COMMIT)
    parser.add_argument("--out", default=str(OUTPUT))
    args = parser.parse_args(argv)
    git, commit = args.bias_bench, args.bias_bench_commit

    sys.path.insert(0, str(HERE.parent))
    import numpy as np
    import tiny_lms
    import torch
    import transformers

    torch.set_num_threads(1)
    tag = f"McGill-NLP/bias-bench@{commit}:"
    register("bias_bench.benchmark.stereoset.dataloader", load_module(git_show(git, commit, DATALOADER),
                                                                      tag + DATALOADER))
    runner_ns = load_module(git_show(git, commit, RUNNER), tag + RUNNER)
    evaluation_ns = load_module(git_show(git, commit, EVALUATION), tag + EVALUATION, skip_names=("parser", "args"),
                                extra={"__file__": str(Path(tempfile.gettempdir()) / EVALUATION)})
    runs = {}
    for name, builder, kind in MODELS:
        model, tokenizer = getattr(tiny_lms, builder)()
        out = io.StringIO()
        with encode_plus_shim(tokenizer), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            runner = runner_ns["StereoSetRunner"](intrasentence_model=model, tokenizer=tokenizer,
                                                  model_name_or_path="bert-base-uncased" if kind == "masked"
                                                  else "gpt2", input_file=str(INPUT), batch_size=1,
                                                  is_generative=kind == "causal")
            predictions = runner()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "predictions.json"
            path.write_text(json.dumps(predictions, default=float), encoding="utf-8")
            with contextlib.redirect_stdout(io.StringIO()):
                results = evaluation_ns["ScoreEvaluator"](str(INPUT), str(path)).get_overall_results()
        runs[name] = {"kind": kind,
                      "function": "StereoSetRunner._likelihood_score" if kind == "masked"
                      else "StereoSetRunner._likelihood_score_generative",
                      "scores": {p["id"]: float(p["score"]) for p in predictions["intrasentence"]},
                      "evaluation": {domain: clean(v) for domain, v in results["intrasentence"].items()}}
    doc = {
        "what": "StereoSet intrasentence sentence scores (unrounded) and ScoreEvaluator results computed by "
                "bias-bench's code, executed unedited by tests/likelihood/make_stereoset_fixture.py",
        "input": {"file": "tests/likelihood/data/stereoset_excerpt.json",
                  "sha256": hashlib.sha256(INPUT.read_bytes()).hexdigest()},
        "code": {"repository": "McGill-NLP/bias-bench", "commit": commit,
                 "files": {f: git_blob(git, commit, f) for f in (DATALOADER, RUNNER, EVALUATION)}},
        "run": "StereoSetRunner(model, tokenizer, model_name_or_path, input_file, batch_size=1, is_generative)() "
               "as experiments/stereoset.py builds it; ScoreEvaluator(input_file, predictions) as "
               "experiments/stereoset_evaluation.py runs it",
        "models": {name: f"tests/tiny_lms.py {builder}()" for name, builder, _ in MODELS},
        "shims": {"PreTrainedTokenizerBase.encode_plus": "removed in transformers 5; calling the tokenizer"},
        "environment": {"python": sys.version.split()[0], "torch": torch.__version__,
                        "transformers": transformers.__version__, "numpy": np.__version__},
        "runs": runs,
    }
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
