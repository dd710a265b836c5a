"""Regenerate the figures embedded in the README (run from the repository root):

    python docs/make_figures.py

Ranks the built-in models on the WEFE case-study query sets with every metric, the three
offline quality benchmarks and 500 bootstrap draws, then copies the PNGs the README shows
into docs/figures/.
"""

import shutil
import tempfile
from pathlib import Path

from wefe_same import rank

SHOWN = ["correlations", "accumulated_rankings", "scores_SAME", "most_biased_words_glove-6b-50d", "rank_stability"]


def main() -> None:
    target = Path(__file__).parent / "figures"
    target.mkdir(exist_ok=True)
    result = rank(quality=["ws353", "simlex999", "google"], bootstrap=500, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        out = result.save(Path(tmp) / "results", figures="all")  # scores_* are not in the paper set
        for stem in SHOWN:
            shutil.copy(out / "figures" / f"{stem}.png", target / f"{stem}.png")
    print(f"wrote {len(SHOWN)} figures to {target}")


if __name__ == "__main__":
    main()
