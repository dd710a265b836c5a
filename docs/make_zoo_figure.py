"""A 100-model run, cheaply, and the figure of it that docs/guide/scale.md shows.

    python docs/make_zoo_figure.py [--models 100] [--keep DIR]

Writes ``--models`` small static models as word2vec text files (20 dimensions, the words
of the default query sets; one random generator seeded with 0, so the same files every
time): Gaussian vectors plus a planted gender direction of a strength that differs per
model and may be negative, so the signed scores spread on both sides of zero and the
ranking has something to find. Then ranks them all with

    wefe-same rank --models 'zoo/*.txt' --no-cache --figures all --formats png --out zoo-results

and copies ``figures/scores_WEAT-ES.png`` (one score heatmap per metric: 100 models ×
the subqueries, in the order of the overall rank, on a diverging map centred at zero)
into ``docs/figures/zoo_scores_WEAT-ES.png``, scaled below 300 KB. A run takes about
two minutes on two cores. ``--keep DIR`` builds the zoo and the results in DIR and
keeps them (to look at every figure and ``report.html``).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

DOCS = Path(__file__).resolve().parent
SHOWN = "scores_WEAT-ES"
TARGET = DOCS / "figures" / f"zoo_{SHOWN}.png"
MAX_BYTES = 300_000
DIM = 20
MALE = {"he", "him", "his", "man", "men", "boy", "boys", "male", "father", "son", "brother", "husband", "uncle"}
FEMALE = {"she", "her", "hers", "woman", "women", "girl", "girls", "female", "mother", "daughter", "sister", "wife",
          "aunt"}


def query_words() -> list[str]:
    """Every word of the default query sets, lower case and without spaces."""
    from wefe_same.options.choices import DEFAULT_QUERIES
    from wefe_same.query.files import load_queries

    with warnings.catch_warnings():  # overlapping sets: rank reports them
        warnings.simplefilter("ignore")
        sets = load_queries(list(DEFAULT_QUERIES))
    return sorted({w.lower() for qs in sets for w in qs.words if re.fullmatch(r"[a-z0-9'-]+", w.lower())})


def write_zoo(folder: Path, n: int) -> list[Path]:
    """``n`` word2vec text files ``zoo-000.txt`` …: random vectors plus a gender direction
    added to the gendered words and, with a smaller random weight, to every other word."""
    rng = np.random.default_rng(0)
    words = query_words()
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        vectors = rng.normal(size=(len(words), DIM))
        direction = rng.normal(size=DIM)
        direction /= np.linalg.norm(direction)
        strength = rng.normal(scale=1.5)  # per model: how gendered its space is, and which way
        sign = np.array([1.0 if w in MALE else -1.0 if w in FEMALE else rng.normal(scale=0.4) for w in words])
        vectors += strength * sign[:, None] * direction
        path = folder / f"zoo-{i:03d}.txt"
        lines = [f"{len(words)} {DIM}"] + [w + " " + " ".join(f"{x:.5f}" for x in row)
                                           for w, row in zip(words, vectors)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def shrink(source: Path, target: Path) -> None:
    """Copy the PNG, scaled down in steps of 10 % until it is under MAX_BYTES (full colour:
    a palette would band the diverging map)."""
    from PIL import Image

    image = Image.open(source).convert("RGB")
    scale = 1.0
    while True:
        size = (round(image.width * scale), round(image.height * scale))
        image.resize(size, Image.Resampling.LANCZOS).save(target, optimize=True)
        if target.stat().st_size < MAX_BYTES or scale < 0.3:
            return
        scale *= 0.9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--keep", type=Path, default=None, help="build the zoo and the results here, kept")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        write_zoo(work / "zoo", args.models)
        out = work / "zoo-results"
        command = [sys.executable, "-m", "wefe_same.cli", "rank", "--models", "zoo/*.txt", "--no-cache",
                   "--figures", "all", "--formats", "png", "--out", "zoo-results"]
        subprocess.run(command, cwd=work, check=True, stdout=subprocess.DEVNULL)
        TARGET.parent.mkdir(exist_ok=True)
        shrink(out / "figures" / f"{SHOWN}.png", TARGET)
    print(f"wrote {TARGET.relative_to(DOCS.parent)} ({TARGET.stat().st_size / 1000:.0f} KB) from {args.models} models")


if __name__ == "__main__":
    main()
