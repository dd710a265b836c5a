"""Write ``seat_fixture.json``: bias-bench's own SEAT code run on the hand-made SEAT files of
``seat_data/`` with the tiny random BERT of ``tests/tiny_transformers.py``.

Usage::

    python tests/metrics/make_seat_fixture.py /work/.mirror/McGill-NLP+bias-bench/repo \\
        291426aab926f78ecfc7bd040b531429ee8123e0

Nothing of bias-bench is committed. The script reads ``bias_bench/benchmark/seat/weat.py`` and
``seat.py`` at the commit with ``git show`` and executes them unedited, with one named shim:
``np.int`` (removed in numpy 1.24; ``weat.py`` casts index arrays with it) set to ``int``.
``seat.py``'s ``from bias_bench.benchmark.seat import weat`` finds the module built here.
``SEATRunner`` itself runs each test (its seed 0, its ``n_samples``), and ``_encode`` gives
the sentence vectors, which the fixture stores so the
test can check our maths on exactly bias-bench's inputs and our encoder on the tiny BERT.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
REPO = "McGill-NLP/bias-bench"
FILES = {"tiny_exact": 100_000, "tiny_sampled": 10_000}  # test -> n_samples
#: A fixed WordPiece vocabulary (a trained one differs from run to run): specials, letters,
#: their ``##`` continuations, punctuation and a few whole words.
LETTERS = "abcdefghijklmnopqrstuvwxyzï"
VOCAB = (["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ","] + list(LETTERS) + [f"##{c}" for c in LETTERS]
         + ["this", "that", "is", "a", "an", "the", "there", "here", "he", "she", "person", "doctor", "nurse"])


def tiny_seat_bert(folder: Path) -> Path:
    """Save a tiny random BERT (torch seed 0, the fixed ``VOCAB``) and its tokenizer in ``folder``."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = BertTokenizerFast(vocab={token: i for i, token in enumerate(VOCAB)})
    torch.manual_seed(0)
    model = BertModel(BertConfig(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=3, num_attention_heads=2,
                                 intermediate_size=48, max_position_embeddings=64))
    model.double().eval()  # float64, so bias-bench's cosines are float64 too (see test_seat.py)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _module(git_dir: str, commit: str, path: str, name: str) -> types.ModuleType:
    source = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], check=True,
                            capture_output=True, text=True).stdout
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    exec(compile(source, f"{REPO}@{commit}:{path}", "exec"), module.__dict__)
    return module


def main(git_dir: str, commit: str) -> None:
    import torch
    from transformers import AutoModel, AutoTokenizer

    if not hasattr(np, "int"):
        np.int = int  # shim: np.int, removed in numpy 1.24, was the builtin int
    for pkg in ("bias_bench", "bias_bench.benchmark", "bias_bench.benchmark.seat"):
        sys.modules.setdefault(pkg, types.ModuleType(pkg))
    weat = _module(git_dir, commit, "bias_bench/benchmark/seat/weat.py", "bias_bench.benchmark.seat.weat")
    sys.modules["bias_bench.benchmark.seat"].weat = weat
    seat = _module(git_dir, commit, "bias_bench/benchmark/seat/seat.py", "bias_bench.benchmark.seat.seat")
    out: dict = {"repository": REPO, "commit": commit,
                 "files": ["bias_bench/benchmark/seat/weat.py", "bias_bench/benchmark/seat/seat.py"],
                 "model": "tiny_seat_bert() of this script (random BERT, torch seed 0)", "tests": {}}
    with tempfile.TemporaryDirectory() as tmp:
        folder = tiny_seat_bert(Path(tmp) / "bert")
        model = AutoModel.from_pretrained(folder, dtype=torch.float64)  # the tiny test model
        model.eval()
        tokenizer = AutoTokenizer.from_pretrained(folder)
        their_encode = seat._encode
        recorded: list[dict] = []

        def recording_encode(*args):  # their _encode, its outputs kept: the runner's own inputs to weat
            recorded.append(their_encode(*args))
            return recorded[-1]

        seat._encode = recording_encode
        for test, n_samples in FILES.items():
            recorded.clear()
            runner = seat.SEATRunner(model, tokenizer, tests=[test], data_dir=str(HERE / "seat_data"),
                                     experiment_id="fixture", n_samples=n_samples, parametric=False, seed=0)
            with contextlib.redirect_stdout(io.StringIO()) as log:
                (result,) = runner()
            encs = dict(zip(("targ1", "targ2", "attr1", "attr2"), recorded, strict=True))
            out["tests"][test] = {
                "file": f"tests/metrics/seat_data/{test}.jsonl", "n_samples": n_samples, "seed": 0,
                "branch": "exact" if "Using exact test" in log.getvalue() else "sampled",
                "effect_size": float(result["effect_size"]), "p_value": float(result["p_value"]),
                "encodings": {k: [[float(x) for x in v] for v in e.values()] for k, e in encs.items()},
                "tokens": {k: [tokenizer.tokenize(t) for t in e] for k, e in encs.items()},
            }
    (HERE / "seat_fixture.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:3])
