"""The cost of laying a figure out: the layout engine alone (``rendering._fix_layout``)
against a whole draw without output (``Figure.draw_without_rendering``, as before).

    python benchmarks/bench_figure_layout.py [--models 4] [--repeat 5]

Ranks ``--models`` small random models on the bundled gender queries with the default
metrics and a 20-draw bootstrap (``--permutations 0``), takes the jobs of the paper figures
and renders each in PNG, PDF and SVG, alternating the two ways of laying out (and which
goes first), ``--repeat`` times each; prints the CPU seconds per figure of each way, their ratio, and whether the
files are byte-identical (they must be).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from wefe_same import Execution, load_queries, rank
from wefe_same.errors import WefeSameWarning
from wefe_same.models.sources import ArraySource
from wefe_same.output import rendering
from wefe_same.output.figure_jobs import figure_jobs


def by_a_draw(fig) -> None:
    """The layout as it was: a whole draw without output, then the positions kept."""
    fig.draw_without_rendering()
    fig.set_layout_engine("none")
    fig.set_layout_engine(None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore", WefeSameWarning)  # the bundled sets' shared words
    queries = load_queries("gender")
    words = sorted({w for qs in queries for s in qs.sets for w in s.words})
    sources = [ArraySource(f"model-{i}", words, np.random.default_rng(i).normal(size=(len(words), 50)))
               for i in range(args.models)]
    result = rank(sources, queries, permutations=0, bootstrap=20, execution=Execution(progress=False))
    jobs, _ = figure_jobs(result, "paper")
    formats = list(rendering.FIGURE_FORMATS)
    ours = rendering._fix_layout
    print(f"{'figure':<24}{'engine alone':>14}{'whole draw':>12}{'ratio':>8}  files")
    total = {"engine": 0.0, "draw": 0.0}
    for job in jobs:
        cpu = {"engine": 0.0, "draw": 0.0}
        files = {}
        for i in range(args.repeat):
            ways = [("engine", ours), ("draw", by_a_draw)]
            for way, fix in ways if i % 2 else ways[::-1]:  # neither way always first
                rendering._fix_layout = fix
                start = time.process_time()
                files[way], _ = rendering.render(job, formats)
                cpu[way] += time.process_time() - start
        rendering._fix_layout = ours
        same = "identical" if files["engine"] == files["draw"] else "DIFFER"
        print(f"{job.stem:<24}{cpu['engine'] / args.repeat:>13.3f}s{cpu['draw'] / args.repeat:>11.3f}s"
              f"{cpu['engine'] / cpu['draw']:>7.2f}x  {same}")
        for way in total:
            total[way] += cpu[way] / args.repeat
    print(f"{'all':<24}{total['engine']:>13.3f}s{total['draw']:>11.3f}s{total['engine'] / total['draw']:>7.2f}x")


if __name__ == "__main__":
    main()
