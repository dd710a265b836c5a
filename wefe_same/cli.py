"""wefe-same: rank models, list the catalog, the metrics and the bundled queries, export vectors.

Bad input prints one line naming the culprit and exits with code 2, no traceback; a run
that fails for a reason outside the arguments (a full disk, a file size limit, out of
memory) prints one line and exits 1; standard output closed by its reader (``| head``)
ends the run quietly with SIGPIPE's status 141, after the results folder was written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from wefe_same.errors import WefeSameError, os_error_message
from wefe_same.options.choices import (
    CHANCE_NULLS,
    CORRELATIONS,
    DEFAULT_QUERIES,
    LIKELIHOOD_SCORINGS,
    NAN_POLICIES,
    P_ADJUSTMENTS,
    PVALUE_METHODS,
    TEMPLATE_ITEMS,
    TIES,
    UNICODE_ERRORS,
)
from wefe_same.processes import load_blas_first_under_a_memory_limit, out_of_memory, stdout_gone
from wefe_same.query.expand import DEFAULT_MAX_SUBQUERIES
from wefe_same.run.seat import add_seat_parser

EXIT_FAILURE = 1  # the run failed for a reason outside the arguments (a full disk, out of memory)
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_TERMINATED = 143  # 128 + SIGTERM
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not usage + message
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def _load_groups(args: argparse.Namespace) -> dict:
    """The groups that say how a model is read (``encoding``, ``loading``, ``execution``) from the
    flags, as ``load_model`` takes them; checked as ``rank`` checks them, before any model is read
    (``--device cuda`` without a CUDA device, ``--contexts`` with templates)."""
    from wefe_same.options.groups import GROUPS, LOAD_GROUPS, from_flat
    from wefe_same.validation import InvalidParameterError

    if args.contexts is not None and (args.templates or args.template_set is not None):
        raise InvalidParameterError("--contexts and --template/--templates exclude each other: a word is encoded "
                                    "in its context sentences or in templates")
    given = {**vars(args), "templates": _templates(args), "cache": _cache(args)}
    return {name: from_flat(GROUPS[name], given, f"wefe-same {args.command}") for name in LOAD_GROUPS}


def _cache(args: argparse.Namespace) -> bool | str | None:
    """``--no-cache`` (False), ``--cache DIR`` or neither (the default folder)."""
    return False if getattr(args, "no_cache", False) else getattr(args, "cache", None)


def _templates(args: argparse.Namespace) -> list[str] | str:
    """``--template SENTENCE`` (repeatable) or ``--templates NAME|FILE``, not both."""
    from wefe_same.validation import InvalidParameterError

    if args.template_set is not None:
        if args.templates:
            raise InvalidParameterError("--template and --templates exclude each other: give sentences with "
                                        "--template, or one template set or file with --templates")
        return str(args.template_set)
    return list(args.templates)


def _metric_options(items: Sequence[str] | None) -> dict:
    """``METRIC.OPTION=VALUE`` items → {metric: {option: value}}; values parsed as TOML scalars."""
    import tomllib

    from wefe_same.validation import InvalidParameterError

    out: dict[str, dict] = {}
    for item in items or ():
        key, sep, raw = item.partition("=")
        metric, dot, option = key.partition(".")
        if not (sep and dot and metric and option):
            raise InvalidParameterError(f"--metric-option takes METRIC.OPTION=VALUE (e.g. DirectBias.k=2). "
                                        f"Got {item!r} instead.")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw  # a bare word: a string choice such as 'exact'
        out.setdefault(metric, {})[option] = value
    return out


def _lipstick(args: argparse.Namespace) -> bool | dict:
    """``--no-lipstick`` (off), ``--lipstick KEY=VALUE ...`` (settings) or neither (the defaults)."""
    from wefe_same.validation import InvalidParameterError

    if args.no_lipstick:
        if args.lipstick:
            raise InvalidParameterError("--lipstick and --no-lipstick exclude each other")
        return False
    out: dict[str, object] = {}
    for item in args.lipstick or ():
        key, sep, raw = item.partition("=")
        if not (sep and key and raw):
            raise InvalidParameterError(f"--lipstick takes KEY=VALUE (e.g. words=500). Got {item!r} instead.")
        out[key] = int(raw) if raw.isdigit() else raw
    return out or True


def _cmd_rank(args: argparse.Namespace) -> int:
    import time

    import pandas as pd

    from wefe_same.output.folder import check_output
    from wefe_same.output.report_trust import agreement_line
    from wefe_same.output.writer import check_formats
    from wefe_same.run import pipeline
    from wefe_same.run.config import RankConfig
    from wefe_same.scoring.chance import chance_cost

    started = time.perf_counter()
    if args.formats is not None:
        check_formats(args.formats)
    out = check_output(Path(args.out))  # an unwritable or unsafe location fails before any model is read
    vars(args).update(templates=_templates(args), cache=_cache(args), progress=None)  # flags that make one option
    config = RankConfig.from_namespace(args, metric_options=_metric_options(args.metric_options),
                                       lipstick=_lipstick(args))
    if (boot := config.bootstrap).chance and boot.chance_every:  # the cost, said before the work
        print(chance_cost(boot.chance, boot.chance_nulls, boot.chance_fitted), file=sys.stderr)
    if boot.split_halves:
        print(f"Split-half reliability: {boot.split_halves} splits, two scorings of each model per split "
              f"(about {2 * boot.split_halves}x its time)", file=sys.stderr)
    result = pipeline.run(config, started=started)
    out = result.save(out, **_save_options(args))
    with pd.option_context("display.width", 120, "display.max_columns", 20):
        print("Rankings (1 = least biased, overall):")
        print(result.rankings.to_string())
        print(f"\n{args.correlation.capitalize()} correlation between rankings:")
        print(result.correlations.round(2).to_string())
    if line := agreement_line(result.agreement, result.redundant_metrics):
        print(f"\n{line}")
    if args.workers == "auto":
        print(f"\nWorkers (auto): {result.manifest['workers']['reason']}")
    print(f"\nWrote {out} in {time.perf_counter() - started:.1f} s{_page_hint(out)}")
    return 0


def _workers(text: str) -> int | str:
    """``--workers``: "auto" or a number; anything else goes to the config as given, which
    refuses it in rank's words (exit 2)."""
    return int(text) if text.strip().lstrip("-").isdigit() else text


def _page_hint(out: Path) -> str:
    """The last line's pointer to the results page, when the page was written."""
    page = Path(out) / "report.html"
    return f"; open {page} to see every table, figure and warning" if page.is_file() else ""


def _save_options(args: argparse.Namespace) -> dict:
    """How the results folder is written: the figure set, its formats, the table formats.

    The paper figures are few: drawn here (a worker pool costs more to start than it
    saves); every figure (``--figures all``) is drawn by worker processes.
    """
    return {"formats": None if args.formats is None else tuple(args.formats), "figures": args.figures,
            "full_tables": args.full_tables, "figure_workers": _figure_workers() if args.figures == "all" else 1}


def _figure_workers() -> int:
    """Figures are drawn in parallel when there is more than one core to use."""
    import os

    return min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def _cmd_quality(args: argparse.Namespace) -> int:
    from wefe_same.models.catalog import resolve_models
    from wefe_same.options.groups import load_options
    from wefe_same.output.folder import check_output, write_folder
    from wefe_same.quality import evaluate_quality, load_benchmark
    from wefe_same.validation import check_int

    out = check_output(Path(args.out), kind="quality")
    check_int(args.analogy_vocab, "--analogy-vocab", "wefe-same quality", minimum=1)
    for b in args.benchmarks:
        load_benchmark(b)
    sources = resolve_models(args.models, load_options(**_load_groups(args), seed=0))
    table = evaluate_quality(sources, args.benchmarks, analogy_vocab=args.analogy_vocab)
    manifest = {"command": "quality", "benchmarks": list(args.benchmarks), "analogy_vocab": args.analogy_vocab,
                "models": [s.name for s in sources]}
    write_folder(out, lambda tmp: table.to_csv(tmp / "quality.csv", index=False), manifest, kind="quality")
    print(table.to_string(index=False))
    print(f"\nWrote {out / 'quality.csv'}")
    return 0


def _cmd_audit(args: argparse.Namespace) -> int:
    import pandas as pd

    from wefe_same.audit import PROPERTIES, audit
    from wefe_same.output.folder import check_output, write_folder

    out = check_output(Path(args.out), kind="audit")
    table = audit(metrics=args.metrics, model=args.model, dim=args.dim)
    marks = table[list(PROPERTIES)].replace({True: "yes", False: "no"})
    with pd.option_context("display.width", 160):
        print(f"Properties of the bias scores (Schröder et al. 2021, Defs 5-8), checked on constructed "
              f"embeddings in {table.attrs['dim']} dimensions:")
        print(marks.to_string())
    write_folder(out, lambda tmp: table.to_csv(tmp / "audit.csv"), {"command": "audit", "dim": table.attrs["dim"]},
                 kind="audit")
    print(f"\nWrote {out / 'audit.csv'} (with the constructed case that breaks each property)")
    return 0


def _cmd_robustness(args: argparse.Namespace) -> int:
    import pandas as pd

    from wefe_same.output.folder import check_output
    from wefe_same.run import pipeline
    from wefe_same.run.config import RankConfig

    out = check_output(Path(args.out))
    vars(args).update(templates=_templates(args), cache=_cache(args))  # flags that make one option
    result = pipeline.run(RankConfig.from_namespace(args, permutations=0))
    table = result.extra["robustness"]
    result.save(out, **_save_options(args))
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print("Robustness to subset selection (Schröder et al. 2021, §5.3.1): mean |b(W_i) - b(W)| over "
              f"{args.halves} random halves W_i of the neutral words")
        print(table.pivot(index="model", columns="metric", values="mean_abs_change").round(4).to_string())
    print(f"\nWrote {out}{_page_hint(out)}")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    import warnings

    from wefe_same.errors import WefeSameWarning
    from wefe_same.output.report_html import rebuild_report

    page, said = rebuild_report(Path(args.results))
    for message in said:
        warnings.warn(message, WefeSameWarning, stacklevel=1)
    print(f"Wrote {page}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    import warnings

    from wefe_same.api import export_vectors
    from wefe_same.errors import WefeSameWarning, short_list

    written, missing = export_vectors(args.spec, Path(args.words), Path(args.out), force=args.force,
                                      **_load_groups(args))
    if missing:
        warnings.warn(f"model {args.spec!r} lacks {len(missing)} of the words (left out): "
                      f"{short_list(missing)}", WefeSameWarning, stacklevel=1)
    print(f"Wrote {written} vectors to {args.out}")
    return 0


def _cmd_models(args: argparse.Namespace) -> int:
    from wefe_same.models.listing import models_listing

    print(models_listing())
    return 0


#: The help of every --metrics option.
METRICS_HELP = "built-in or installed plugin metric names, as wefe-same metrics lists them (default: every built-in)"


def _cmd_metrics(args: argparse.Namespace) -> int:
    from wefe_same.metrics.registry import METRICS, ORDER_MEANING, MetricSpec, plugin_metrics

    def line(spec: MetricSpec) -> str:
        options = ", ".join(f"{k}={v!r}" for k, v in spec.options.items()) or "-"
        order = ORDER_MEANING[spec.order].replace("ideal", f"ideal={spec.ideal:g}")
        return f"{spec.name:11} template {spec.template!s:12} order: {order}; options: {options}"

    for spec in METRICS.values():
        print(line(spec))
    plugins = plugin_metrics().specs  # a plugin that fails to load is one warning line on stderr
    if plugins:
        print("\nInstalled plugin metrics (entry point group wefe_same.metrics):")
        for spec in plugins.values():
            print(f"{line(spec)}; package: {spec.origin.package if spec.origin else '?'}")
    return 0


def _cmd_queries(args: argparse.Namespace) -> int:
    from wefe_same.query.files import bundled_query_sets, load_queries

    for qs in load_queries(bundled_query_sets()):
        print(f"{qs.name:10} {len(qs.queries):3} queries {len(qs.sets):3} sets  {qs.description or ''}")
    return 0


def _add_model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--models", nargs="+", metavar="SPEC",
                   help="catalog names, paths, gensim-data:NAME, sbert:PATH, hf:PATH, a plugin's SCHEME:ARG "
                        "(`wefe-same models` lists them; default: every installed catalog model and its variants)")
    _add_load_options(p)


def _add_load_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--template", dest="templates", action="append", default=[], metavar="SENTENCE",
                   help='encoders: encode each word in this sentence, e.g. "This is a {word}." '
                        "(repeatable: the mean over templates)")
    p.add_argument("--templates", dest="template_set", metavar="seat|FILE",
                   help="encoders: a template set: seat (May et al. 2019's bleached templates, bundled; "
                        "seat-names, seat-terms force one list) or a file with one template a line")
    p.add_argument("--contexts", metavar="FILE",
                   help="encoders: encode each word in sentences of FILE that contain it (text, one sentence a "
                        "line, or .jsonl); hf: models pool the word's own tokens (word-mean) by default")
    p.add_argument("--contexts-per-word", type=int, default=20, metavar="N",
                   help="at most N context sentences per word, drawn with --seed (default: %(default)s)")
    p.add_argument("--unicode-errors", choices=UNICODE_ERRORS, default="strict",
                   help="a word that is not UTF-8 in a model file: stop (default) or decode leniently")
    p.add_argument("--no-subwords", dest="subwords", action="store_false",
                   help="fastText .bin: no vectors built from subwords for unknown words")
    p.add_argument("--trust-pickle", action="store_true",
                   help="allow loading pickles, which run code: gensim .kv/.model files given by path, "
                        "encoder weights that exist only as pytorch_model.bin")
    p.add_argument("--allow-download", action="store_true",
                   help="let encoder models be fetched from the Hugging Face hub (default: offline)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto", help="where torch encoders run: "
                   "auto (default) a CUDA device when torch sees one, else the CPU; cuda without one is an error")


def _add_run_options(p: argparse.ArgumentParser, out: str) -> None:
    p.add_argument("--out", default=out, help="results folder (default: %(default)s)")
    p.add_argument("--figures", choices=("paper", "all"), default="paper",
                   help="paper (default): the correlation heatmap and the accumulated rankings (and the "
                        "stability and robustness figures when computed); all: also a score heatmap per "
                        "metric and the most-biased words (a figure per model up to 12 models, one heatmap of "
                        "every model beyond). A figure whose data did not "
                        "change is copied from the results folder being replaced, not redrawn")
    p.add_argument("--formats", nargs="+", default=None, metavar="FMT",
                   help="figure formats: png, pdf, svg (default: png pdf; with --figures all: all three)")
    p.add_argument("--full-tables", action="store_true", help="write word_bias, details and lookups as plain CSV "
                   "(default: word_bias.parquet, details.csv.gz, lookups.csv.gz)")
    p.add_argument("--workers", type=_workers, default=1, metavar="N|auto",
                   help="local worker processes (default: 1, in this process); auto: from the usable cores, the "
                        "available memory, the number of models and, for encoders on CUDA, the device's free "
                        "memory (how many and why: printed and in the manifest)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="dask.distributed scheduler address")
    p.add_argument("--cache", metavar="DIR", help="model cache folder (default: the user cache directory)")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the model cache")
    p.add_argument("--models-file", metavar="FILE",
                   help="a TOML or CSV file of model specs with optional metadata (numeric columns are ranked "
                        "beside, like --external); globs such as hf:zoo/* expand in sorted order")
    p.add_argument("--skip-unloadable", action="store_true", help="leave out models that cannot be used (named "
                   "in a warning, the manifest and the report) instead of stopping")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="wefe-same", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("rank", help="rank models by fairness and write the results folder")
    _add_model_options(p)
    p.add_argument("--queries", nargs="+", default=list(DEFAULT_QUERIES),
                   metavar="NAME|PATH", help="bundled query sets or TOML files (default: %(default)s)")
    p.add_argument("--metrics", nargs="+", metavar="NAME", help=METRICS_HELP)
    p.add_argument("--metric-option", dest="metric_options", action="append", metavar="METRIC.OPTION=VALUE",
                   help="a metric option, e.g. DirectBias.k=2 (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="seed of the stochastic steps (default: 0)")
    p.add_argument("--missing-threshold", type=float, default=0.2,
                   help="share of a set's words that may be missing (default: 0.2)")
    p.add_argument("--shared-words", action="store_true", help="score every model on the words all models have")
    p.add_argument("--template-items", choices=TEMPLATE_ITEMS, default="sentences",
                   help="encoders in templates: every sentence an item of its set (SEAT, May et al. 2019; "
                        "default) or each word one item, the mean of its templates (words)")
    p.add_argument("--max-subqueries", type=int, default=DEFAULT_MAX_SUBQUERIES, metavar="N",
                   help="refuse, before any work, queries that expand into more subqueries (all metrics "
                        "together; the bundled library gives 937) (default: %(default)s)")
    p.add_argument("--ties", choices=TIES, default="min", help="tie rule (default: %(default)s)")
    p.add_argument("--nan-policy", choices=NAN_POLICIES, default="skip",
                   help="undefined subquery scores: skip (average each model's defined ones), propagate "
                        "(any NaN gives NaN), common (rank every metric on the subqueries every model "
                        "defines) (default: %(default)s)")
    p.add_argument("--correlation", choices=CORRELATIONS, default="spearman",
                   help="correlation between rankings (default: %(default)s)")
    p.add_argument("--correlation-pvalues", choices=PVALUE_METHODS, default="exact",
                   help="p-values of the correlations: exact (every order up to 10 models, a seeded "
                        "permutation test above) or asymptotic (scipy's approximation) (default: %(default)s)")
    p.add_argument("--correlation-resamples", type=int, default=100_000, metavar="R",
                   help="resamples of the correlations' permutation test above 10 models (default: %(default)s)")
    p.add_argument("--p-adjust", choices=P_ADJUSTMENTS, default="holm",
                   help="adjustment of the correlation table's p-values for its many tests, written to "
                        "correlation_pvalues_adjusted.csv: holm or bh (Benjamini-Hochberg) (default: %(default)s)")
    p.add_argument("--permutations", type=int, default=10_000,
                   help="sampled splits of the WEAT permutation test when there are more than "
                        "100 000 (else exact); 0 skips it (default: %(default)s)")
    p.add_argument("--bootstrap", type=int, default=0, metavar="B", help="bootstrap draws over subqueries for "
                   "confidence intervals (default: 0, off)")
    p.add_argument("--bootstrap-words", type=int, default=0, metavar="B", help="bootstrap draws over the words "
                   "inside every set (default: 0, off)")
    p.add_argument("--halves", type=int, default=0, metavar="H", help="random halves of the neutral words for the "
                   "robustness table (default: 0, off)")
    p.add_argument("--chance", type=int, default=0, metavar="N", help="draws of each chance baseline of the "
                   "metrics that have it in one pass: WEAT, WEAT-ES and the SAME family (default: 0, off)")
    p.add_argument("--chance-every", action="store_true", help="chance baselines of every metric and null, each "
                   "draw one more scoring of every model")
    p.add_argument("--chance-null", dest="chance_nulls", nargs="+", choices=CHANCE_NULLS, default=["permutation"],
                   help="words permuted across each role's sets, or random vectors (default: permutation)")
    p.add_argument("--chance-fitted", action="store_true", help="chance baselines of RNSB too (a fit per draw)")
    p.add_argument("--reliability", action="store_true", help="the reliability table: internal and inter-rater "
                   "consistency of the word-level scores, test-retest across the seeds a models file declares")
    p.add_argument("--split-halves", type=int, default=0, metavar="H", help="random splits of every set into two "
                   "halves, each scored: split-half reliability of every ranking (default: 0, off)")
    p.add_argument("--quality", nargs="+", metavar="BENCHMARK",
                   help="quality benchmarks to rank beside fairness: ws353, simlex999, google or paths")
    p.add_argument("--likelihood", nargs="+", metavar="NAME=FILE",
                   help="likelihood bias benchmarks of language models ranked beside: crows-pairs=FILE "
                        "(the authors' CSV), stereoset=FILE (StereoSet JSON); never downloaded without "
                        "--allow-download")
    p.add_argument("--likelihood-scoring", nargs="+", choices=LIKELIHOOD_SCORINGS, default="authors",
                   help="how masked models score a sentence: authors (default), bias-bench, pll, aul; the "
                        "first is ranked, several add rows to measurement_sensitivity.csv")
    p.add_argument("--analogy-vocab", type=int, default=300_000, metavar="K",
                   help="analogy candidates: the K most frequent words (default: %(default)s)")
    p.add_argument("--external", metavar="FILE.csv", help="a CSV with a 'model' column and numeric columns "
                   "(downstream bias) to rank beside")
    p.add_argument("--vary", nargs="+", metavar="KEY=V1,V2",
                   help="hf: models: one variant per combination, e.g. --vary pooling=mean,cls,word-mean "
                        "layer=-1,-4:-1; writes measurement_sensitivity.csv (does the ranking survive?)")
    p.add_argument("--higher-is-better", nargs="+", metavar="COLUMN",
                   help="external columns where a higher value means less biased")
    p.add_argument("--lipstick", nargs="+", metavar="KEY=VALUE",
                   help="settings of Gonen & Goldberg's lipstick tests of gender-debiased variants, e.g. "
                        "words=500 train=500 test=2000 neighbours=100 neighbour_words=500 vocab=50000 "
                        "gamma=auto seeds=5 (default: those, the authors' numbers)")
    p.add_argument("--no-lipstick", action="store_true", help="skip the lipstick tests (debias_lipstick.csv)")
    _add_run_options(p, "results")
    p.set_defaults(run=_cmd_rank)

    p = sub.add_parser("robustness", help="robustness of every score to random halves of the neutral words")
    _add_model_options(p)
    p.add_argument("--queries", nargs="+", default=list(DEFAULT_QUERIES), metavar="NAME|PATH")
    p.add_argument("--metrics", nargs="+", metavar="NAME", help=METRICS_HELP)
    p.add_argument("--halves", type=int, default=20, metavar="H", help="random halves (default: %(default)s)")
    p.add_argument("--max-subqueries", type=int, default=DEFAULT_MAX_SUBQUERIES, metavar="N",
                   help="refuse queries that expand into more subqueries (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    _add_run_options(p, "robustness")
    p.set_defaults(run=_cmd_robustness)

    p = sub.add_parser("quality", help="evaluate embedding quality (word similarity, analogies)")
    _add_model_options(p)
    p.add_argument("--benchmarks", nargs="+", default=["ws353", "simlex999", "google"], metavar="NAME|PATH",
                   help="bundled benchmarks or files (default: %(default)s)")
    p.add_argument("--analogy-vocab", type=int, default=300_000, metavar="K",
                   help="analogy candidates: the K most frequent words (default: %(default)s)")
    p.add_argument("--out", default="quality", help="results folder for quality.csv (default: %(default)s)")
    p.set_defaults(run=_cmd_quality)

    p = sub.add_parser("audit", help="check each metric's properties on constructed embeddings")
    p.add_argument("--model", help="construct embeddings in this model's dimension")
    p.add_argument("--metrics", nargs="+", metavar="NAME", help=METRICS_HELP)
    p.add_argument("--dim", type=int, default=300, help="dimension when no model is given (default: 300)")
    p.add_argument("--out", default="audit", help="results folder for audit.csv (default: %(default)s)")
    p.set_defaults(run=_cmd_audit)

    p = sub.add_parser("report", help="rebuild report.html of a results folder from its tables")
    p.add_argument("results", metavar="RESULTS_DIR", help="a results folder written by `wefe-same rank`")
    p.set_defaults(run=_cmd_report)

    p = sub.add_parser("export", help="write the vectors of some words of a model (any variant) as word2vec text")
    p.add_argument("spec", metavar="SPEC", help="a model spec, e.g. glove-6b-50d+hsr-debias")
    p.add_argument("--words", required=True, metavar="FILE", help="one word per line (UTF-8)")
    p.add_argument("--out", required=True, metavar="FILE", help="the word2vec text file to write")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    _add_load_options(p)
    p.set_defaults(run=_cmd_export)

    sub.add_parser("models", help="list the built-in catalog and gensim-data names").set_defaults(run=_cmd_models)
    sub.add_parser("metrics", help="list the metric registry").set_defaults(run=_cmd_metrics)
    sub.add_parser("queries", help="list the bundled query sets").set_defaults(run=_cmd_queries)
    add_seat_parser(sub)
    return parser


def _one_line_warnings() -> None:
    """Warnings for the user as one line each on stderr, not file:line plus source (a
    message of several lines is joined into one)."""
    import warnings

    from wefe_same.errors import WefeSameWarning

    def show(message, category, filename, lineno, file=None, line=None):
        print(f"wefe-same: warning: {' '.join(str(message).split())}", file=sys.stderr)

    warnings.showwarning = show
    warnings.simplefilter("always", WefeSameWarning)


def main(argv: Sequence[str] | None = None) -> int:
    import signal

    args = build_parser().parse_args(argv)
    _one_line_warnings()
    # SIGTERM ends the run like Ctrl-C: the results folder is written whole or not at all.
    previous = signal.signal(signal.SIGTERM, _terminate) if hasattr(signal, "SIGTERM") else None
    try:
        load_blas_first_under_a_memory_limit()
        return args.run(args)
    except WefeSameError as err:
        print(f"wefe-same: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("wefe-same: interrupted; earlier results are untouched", file=sys.stderr)
        return EXIT_INTERRUPTED
    except _Terminated:
        print("wefe-same: terminated; earlier results are untouched", file=sys.stderr)
        return EXIT_TERMINATED
    except BrokenPipeError as err:
        if not stdout_gone():  # a pipe of our own (a worker, a socket) broke: a failure, said
            print(f"wefe-same: error: {os_error_message(err)}", file=sys.stderr)
            return EXIT_FAILURE
        # `wefe-same rank | head -1`: the reader left. Quiet, with SIGPIPE's status, as
        # shell tools end; the results folder was written before anything was printed.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except OSError as err:  # the world outside the arguments: a full disk, a file size limit
        print(f"wefe-same: error: {os_error_message(err)}", file=sys.stderr)
        return EXIT_FAILURE
    except ImportError as err:
        if not out_of_memory(err):
            raise
        print(OUT_OF_MEMORY, file=sys.stderr)
        return EXIT_FAILURE
    except MemoryError:  # a memory limit (ulimit -v) or a machine too small
        print(OUT_OF_MEMORY, file=sys.stderr)
        return EXIT_FAILURE
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


OUT_OF_MEMORY = ("wefe-same: error: out of memory (a memory limit such as ulimit -v, or too little memory "
                 "for these models; try fewer models at a time); earlier results are untouched")


class _Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so that every cleanup runs."""


def _terminate(signum, frame):
    raise _Terminated


if __name__ == "__main__":
    sys.exit(main())
