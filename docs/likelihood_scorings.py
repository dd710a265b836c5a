"""Does the ranking of masked language models survive the choice of scoring? (docs/guide/likelihood.md)

    python docs/likelihood_scorings.py CROWS_CSV [--pairs N] [--out DIR]

Saves three **tiny masked models with random weights** (``BertForMaskedLM``, 2 layers, 32
dimensions, ``initializer_range=0.5``, ``torch.manual_seed`` 0, 1 and 2, the BERT uncased
vocabulary of the bundled all-MiniLM-L6-v2): their figures say nothing about BERT, they show
the mechanics. Ranks them with ``glove-6b-50d`` on the gender queries (WEAT) and the first
``--pairs`` CrowS-Pairs pairs under ``likelihood_scoring=["authors", "pll", "aul"]``, then
under each option alone (read from the run's cache), and prints the tables the guide shows.
"""

from __future__ import annotations

import argparse
import csv
import warnings
from pathlib import Path

from rank_likelihood import markdown

from wefe_same import Likelihood

SCORINGS = ["authors", "pll", "aul"]


def save_masked(folder: Path, seed: int) -> None:
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast
    from transformers.utils import logging as hf_logging

    from wefe_same.models.catalog import minilm_folder

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    torch.manual_seed(seed)
    tokenizer = BertTokenizerFast.from_pretrained(str(minilm_folder()))
    BertForMaskedLM(BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                               num_attention_heads=2, intermediate_size=48,
                               initializer_range=0.5)).save_pretrained(folder)
    tokenizer.save_pretrained(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crows")
    parser.add_argument("--pairs", type=int, default=1508)
    parser.add_argument("--out", default="likelihood-scorings")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(args.crows, encoding="utf-8", newline="") as fh:
        header, *rows = list(csv.reader(fh))
    crows = out / "crows.csv"
    with crows.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([header, *rows[:args.pairs]])
    models = ["glove-6b-50d"]
    for seed in range(3):
        save_masked(out / f"mlm-random-{seed}", seed)
        models.append(f"mlm-random-{seed}=hf:{out / f'mlm-random-{seed}'}")

    import pandas as pd

    from wefe_same import rank

    options = dict(metrics=["WEAT"], permutations=0, execution={"progress": False, "cache": out / "cache"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # glove-6b-50d's NaN, said in the guide
        crows_pairs = [f"crows-pairs={crows}"]
        result = rank(models, "gender", **options, likelihood=Likelihood(crows_pairs, scoring=SCORINGS))
        alone = {s: rank(models, "gender", **options, likelihood=Likelihood(crows_pairs, scoring=s)) for s in SCORINGS}
    result.save(out / "results", formats=[])
    column = "likelihood:crows-pairs"
    values = {f"{s}: {kind}": getattr(alone[s], kind)[column] for s in SCORINGS for kind in ("aggregates", "rankings")}
    print(markdown(pd.DataFrame(values)))
    print()
    print(markdown(result.measurement_sensitivity, index=False))


if __name__ == "__main__":
    main()
