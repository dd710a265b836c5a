"""The likelihood scores beside the cosine metrics, offline (docs/guide/likelihood.md).

    python docs/rank_likelihood.py CROWS_CSV STEREOSET_JSON [--pairs N] [--examples N] [--out DIR]

No masked or causal language model with trained weights installs offline, so this script
saves two **tiny models with random weights** (2 layers, 32 dimensions, weights drawn with
``initializer_range=0.5`` from ``torch.manual_seed(0)``): ``mlm-random``, a
``BertForMaskedLM`` with the BERT uncased vocabulary of the bundled all-MiniLM-L6-v2, and
``clm-random``, a ``GPT2LMHeadModel`` with a byte-level BPE trained here on the CrowS-Pairs
sentences. Their scores say nothing about BERT or GPT-2: they show the mechanics. The
command is the same for real weights saved with ``save_pretrained`` (``hf:./bert-base-uncased``).

It then ranks them with ``glove-6b-50d`` (static vectors) and ``minilm-l6-v2`` (a sentence
encoder without a language-model head) on the gender queries with WEAT, RNSB and SAME,
and ``--likelihood`` on the first ``--pairs`` CrowS-Pairs pairs and ``--examples``
StereoSet examples, and prints the tables the guide shows.
"""

from __future__ import annotations

import argparse
import csv
import json
import warnings
from pathlib import Path

from wefe_same import Execution

SEED = 0


def save_models(root: Path, sentences: list[str]) -> tuple[Path, Path]:
    import torch
    from tokenizers.implementations import ByteLevelBPETokenizer
    from transformers import (
        BertConfig,
        BertForMaskedLM,
        BertTokenizerFast,
        GPT2Config,
        GPT2LMHeadModel,
        GPT2TokenizerFast,
    )
    from transformers.utils import logging as hf_logging

    from wefe_same.models.catalog import minilm_folder

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    torch.manual_seed(SEED)
    tokenizer = BertTokenizerFast.from_pretrained(str(minilm_folder()))
    mlm = BertForMaskedLM(BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=48, initializer_range=0.5))
    mlm.save_pretrained(root / "mlm-random")
    tokenizer.save_pretrained(root / "mlm-random")
    torch.manual_seed(SEED)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(sentences, vocab_size=2000, min_frequency=2, show_progress=False,
                            special_tokens=["<|endoftext|>"])
    model = json.loads(bpe._tokenizer.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    gpt2_tok = GPT2TokenizerFast(vocab=model["vocab"], merges=merges, bos_token="<|endoftext|>",
                                 eos_token="<|endoftext|>", unk_token="<|endoftext|>")
    end = model["vocab"]["<|endoftext|>"]
    clm = GPT2LMHeadModel(GPT2Config(vocab_size=len(model["vocab"]), n_embd=32, n_layer=2, n_head=2,
                                     initializer_range=0.5, bos_token_id=end, eos_token_id=end))
    clm.save_pretrained(root / "clm-random")
    gpt2_tok.save_pretrained(root / "clm-random")
    return root / "mlm-random", root / "clm-random"


def markdown(frame, index: bool = True) -> str:
    """A DataFrame as a Markdown table (numbers with 2 decimals, NaN and <NA> as "NaN")."""
    import pandas as pd

    frame = frame.reset_index() if index else frame
    cell = lambda v: "NaN" if pd.isna(v) else f"{v:.2f}" if isinstance(v, float) else str(v)  # noqa: E731
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crows")
    parser.add_argument("stereoset")
    parser.add_argument("--pairs", type=int, default=1508)
    parser.add_argument("--examples", type=int, default=2106)
    parser.add_argument("--out", default="likelihood-run")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(args.crows, encoding="utf-8", newline="") as fh:
        header, *rows = list(csv.reader(fh))
    rows = rows[:args.pairs]
    crows = out / "crows.csv"
    with crows.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([header, *rows])
    doc = json.loads(Path(args.stereoset).read_text(encoding="utf-8"))
    doc["data"]["intrasentence"] = doc["data"]["intrasentence"][:args.examples]
    stereoset = out / "stereoset.json"
    stereoset.write_text(json.dumps(doc), encoding="utf-8")
    mlm, clm = save_models(out, [s for r in rows for s in (r[1], r[2])])

    from wefe_same import rank

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = rank([f"mlm-random=hf:{mlm}", f"clm-random=hf:{clm}", "glove-6b-50d", "minilm-l6-v2"], "gender",
                      metrics=["WEAT", "RNSB", "SAME"], permutations=0,
                      likelihood=[f"crows-pairs={crows}", f"stereoset={stereoset}"],
                      execution=Execution(cache=False, progress=False))
    result.save(out / "results", formats=[])
    columns = [c for c in result.aggregates.columns if c.startswith("likelihood:") and "[" not in c]  # overall
    print(markdown(result.aggregates[["WEAT", "RNSB", "SAME", *columns]]))
    print()
    print(markdown(result.rankings[["WEAT", "RNSB", "SAME", *columns]]))
    print()
    table = result.likelihood
    print(markdown(table[table["bias_type"] == "overall"].drop(columns=["bias_type"]), index=False))
    print()
    print(markdown(result.correlations.loc[["WEAT", "RNSB", "SAME"], columns]))
    print()
    for w in caught:
        if "likelihood" in str(w.message):
            print("warning:", w.message)


if __name__ == "__main__":
    main()
