"""The writer of the results folder.

Order: every CSV table, then the LaTeX/Markdown tables, then the figures, then
``manifest.json`` (with the inventory of everything written); with figure workers, the
figures are drawn while the tables are written. The folder is staged
beside its destination and swapped into place (:mod:`wefe_same.output.folder`), so it is the
earlier folder or the new one, never half of each.

A finished run is never lost to a figure: a figure that fails, or has nothing to show
for a model (every value NaN), shows the model as missing or is left out, with a
:class:`~wefe_same.errors.WefeSameWarning` and a line in ``manifest["warnings"]``.

Each figure is drawn once and saved in every format asked, to bytes that depend only on
the data (no dates, fixed SVG hash salt). With ``figure_workers > 1`` the figures are
drawn in worker processes ("forkserver": no copy of the parent's threads or locks);
a figure job is a picklable ``(stem, function, args)``.
"""

from __future__ import annotations

import contextlib
import functools
import io
import multiprocessing
import signal
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from wefe_same.output import figures as plots, latex as tables
from wefe_same.errors import WefeSameWarning
from wefe_same.interrupts import signals_deferred
from wefe_same.output.folder import write_folder
from wefe_same.result import FIGURE_FORMATS, RankResult
from wefe_same.validation import as_list, check_choice, check_int

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["check_formats", "figure_jobs", "render", "write_results"]

#: Which per-word scores the "most biased words" figures show, in order of preference.
WORD_FIGURE_PREFERENCE = (("SAME", "b"), ("DirectBias", "b"), ("WEAT", "s"))
#: Settings of every saved figure: byte-identical files for the same data.
RC = {"svg.hashsalt": "wefe_same", "svg.fonttype": "none"}
DPI = 150
_METADATA = {"png": {"Software": None}, "pdf": {"CreationDate": None, "Producer": None},
             "svg": {"Date": None}}
#: A note from a figure: (model or None, what, how it is handled),
#: e.g. ("m", "no values", "shown as missing").
Note = tuple[str | None, str, str]


class FigureJob(NamedTuple):
    """One figure: ``draw(*args) -> (Figure or None, notes)``; picklable for worker processes."""

    stem: str
    draw: Callable[..., tuple["Figure | None", list[Note]]]
    args: tuple[Any, ...]
    cost: float = 1.0


def check_formats(formats: Sequence[str] | str) -> tuple[str, ...]:
    """The figure formats, checked before any work: a subset of png, pdf, svg.

    >>> check_formats("svg")
    ('svg',)
    >>> check_formats(["png", "pdf", "png"])
    ('png', 'pdf')
    """
    items = as_list(formats, "formats", "save")
    return tuple(dict.fromkeys(check_choice(f, "formats", "save", FIGURE_FORMATS) for f in items))


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


# -- tables -----------------------------------------------------------------------------


def write_csv_tables(result: RankResult, folder: Path) -> None:
    """Every table of the result as CSV (the part of a run that must never be lost)."""
    (folder / "scores").mkdir(exist_ok=True)
    for metric, matrix in result.scores.items():
        matrix.to_csv(folder / "scores" / f"{_safe(metric)}.csv")
    result.aggregates.to_csv(folder / "aggregates.csv")
    result.rankings.to_csv(folder / "rankings.csv")
    result.correlations.to_csv(folder / "correlations.csv")
    result.correlation_pvalues.to_csv(folder / "correlation_pvalues.csv")
    result.by_query_set.to_csv(folder / "by_query_set.csv", index=False)
    result.details.to_csv(folder / "details.csv", index=False)
    result.lookups.to_csv(folder / "lookups.csv", index=False)
    for name in ("aggregates_ci", "correlations_ci", "rank_stability", "quality"):
        table = getattr(result, name)
        if table is not None:
            table.to_csv(folder / f"{name}.csv", index=False)
    if result.word_bias is not None:
        result.word_bias.to_csv(folder / "word_bias.csv", index=False, float_format="%.6g")
    for name, table in result.extra.items():
        table.to_csv(folder / f"{_safe(name)}.csv", index=False)


def write_tables(result: RankResult, folder: Path) -> list[Note]:
    """``rankings`` and ``correlations`` as LaTeX (booktabs) and Markdown; a table that
    cannot be built is left out with a note."""
    folder.mkdir(exist_ok=True)
    models = list(result.rankings.index)
    apart = [c for c in (result.set_apart or ()) if c in result.rankings.columns]
    notes: list[Note] = []

    def rankings() -> None:
        blocks = tables.ranking_blocks(result.by_query_set, result.rankings[apart] if apart else None,
                                       result.metric_names, models)
        caption = ("Rank (aggregated score) of each model per metric and query set; 1 = least biased, "
                   "best in bold." + (" Quality: 1 = best." if result.quality_columns else ""))
        (folder / "rankings.tex").write_text(tables.rankings_latex(blocks, models, caption))
        (folder / "rankings.md").write_text(tables.rankings_markdown(blocks, models, caption))

    def correlations() -> None:
        caption = "Spearman correlation between the rankings."
        (folder / "correlations.tex").write_text(tables.correlations_latex(result.correlations, caption))
        (folder / "correlations.md").write_text(tables.correlations_markdown(result.correlations, caption))

    for name, write in (("rankings", rankings), ("correlations", correlations)):
        try:
            write()
        except Exception as err:  # a finished run outlives a table that cannot be typeset
            notes.append((None, f"table {name} failed ({type(err).__name__}: {err})", "left out"))
    return notes


# -- figures: each draw function is top level (picklable) and returns (figure, notes) ----


def _figure(size: tuple[float, float]) -> Figure:
    from matplotlib.figure import Figure  # no pyplot: no global state, any backend

    return Figure(figsize=size, dpi=DPI, layout="constrained")


def _fix_layout(fig: Figure) -> None:
    """Lay the figure out once, then keep that layout for every format (a layout engine
    would redo it, with an extra draw, in each ``savefig``)."""
    fig.draw_without_rendering()
    fig.set_layout_engine("none")  # keeps the positions found ...
    fig.set_layout_engine(None)  # ... and drops the placeholder engine that still costs a draw


def _empty_rows(frame: pd.DataFrame) -> list[str]:
    return [str(m) for m in frame.index[plots.as_floats(frame).isna().all(axis=1)]]


def _models_without_values(values: pd.Series, models: pd.Series) -> list[str]:
    """The models (in order of appearance) of a long table whose every value is missing."""
    missing = pd.to_numeric(values, errors="coerce").isna().groupby(models, sort=False).all()
    return [str(m) for m in missing.index[missing.to_numpy()]]


def draw_correlations(correlations: pd.DataFrame, set_apart: Sequence[str]) -> tuple[Figure | None, list[Note]]:
    if correlations.empty:
        return None, [(None, "no ranking columns to correlate", "left out")]
    n = len(correlations.columns)
    fig = _figure((2.7 + 0.6 * n, 1.2 + 0.6 * n))
    plots.correlation_heatmap(correlations, ax=fig.subplots(), set_apart=set_apart)
    values = plots.as_floats(correlations).to_numpy()
    off_diagonal = values[~np.eye(n, dtype=bool)]
    notes = [(None, "every correlation is undefined", "shown as n/a")] if n > 1 and np.isnan(off_diagonal).all() else []
    return fig, notes


def draw_accumulated(rankings: pd.DataFrame) -> tuple[Figure | None, list[Note]]:
    if rankings.empty:
        return None, [(None, "no rankings", "left out")]
    fig = _figure((9, 1.2 + 0.5 * len(rankings)))
    plots.accumulated_rankings(rankings, ax=fig.subplots())
    notes = [(m, f"no rank for {', '.join(map(str, cols))}", "shown as missing")
             for m, cols in plots.missing_ranks(rankings).items()]
    return fig, notes


def draw_scores(matrix: pd.DataFrame, metric: str) -> tuple[Figure | None, list[Note]]:
    if matrix.shape[1] == 0:
        return None, [(None, f"metric {metric!r} has no subqueries", "left out")]
    fig = _figure((2.5 + 0.25 * matrix.shape[1], 4.5 + 0.45 * matrix.shape[0]))
    plots.score_heatmap(matrix, ax=fig.subplots(), title=f"{metric} scores")
    return fig, [(m, "no values", "shown as missing") for m in _empty_rows(matrix)]


def draw_words(rows: pd.DataFrame, model: str, metric: str, component: str) -> tuple[Figure | None, list[Note]]:
    if plots.top_words(rows, model, metric=metric, component=component, n=1).empty:
        return None, [(model, f"no per-word {metric} values", "left out")]
    fig = _figure((6, 5))
    plots.most_biased_words(rows, model, metric=metric, component=component, ax=fig.subplots())
    return fig, []


def draw_stability(stability: pd.DataFrame, n_metrics: int) -> tuple[Figure | None, list[Note]]:
    fig = _figure((2.5 + 0.6 * n_metrics, 4.5))
    plots.rank_stability(stability, ax=fig.subplots())
    return fig, [(m, "no ranks", "shown as missing")
                 for m in _models_without_values(stability["rank"], stability["model"])]


def draw_robustness(table: pd.DataFrame) -> tuple[Figure | None, list[Note]]:
    n_models, n_metrics = table["model"].nunique(), table["metric"].nunique()
    fig = _figure((2.5 + 0.7 * n_metrics, 1.5 + 0.45 * n_models))
    plots.robustness(table, ax=fig.subplots())
    return fig, [(m, "no values", "shown as missing")
                 for m in _models_without_values(table["mean_abs_change"], table["model"])]


def _word_figure_metric(word_bias: pd.DataFrame) -> tuple[str, str] | None:
    """SAME's b(t) when it has values, else the first preferred metric that has some."""
    values = pd.to_numeric(word_bias["value"], errors="coerce")
    present = {(m, c) for m, c in zip(word_bias["metric"][values.notna()], word_bias["component"][values.notna()])}
    return next((mc for mc in WORD_FIGURE_PREFERENCE if mc in present), None)


def figure_jobs(result: RankResult) -> tuple[list[FigureJob], list[Note]]:
    """Every figure of the results folder as jobs, each with only the data it draws."""
    jobs = [FigureJob("correlations", draw_correlations, (result.correlations, list(result.set_apart or ()))),
            FigureJob("accumulated_rankings", draw_accumulated, (result.rankings,))]
    jobs += [FigureJob(f"scores_{_safe(metric)}", draw_scores, (matrix, metric), cost=1 + matrix.size / 100)
             for metric, matrix in result.scores.items()]
    notes: list[Note] = []
    if result.word_bias is not None and len(result.word_bias):
        chosen = _word_figure_metric(result.word_bias)
        if chosen is None:
            notes.append((None, "no per-word values for any model", "left out"))
        else:
            metric, component = chosen
            wb = result.word_bias
            wb = wb[(wb["metric"] == metric) & (wb["component"] == component)]
            by_model = dict(tuple(wb.groupby("model", sort=False)))
            for model in result.rankings.index:
                rows = by_model.get(model, wb.iloc[:0])
                jobs.append(FigureJob(f"most_biased_words_{_safe(str(model))}", draw_words,
                                      (rows, str(model), metric, component), cost=0.3))
    if result.rank_stability is not None:
        jobs.append(FigureJob("rank_stability", draw_stability, (result.rank_stability, len(result.metric_names))))
    robustness = result.extra.get("robustness")
    if robustness is not None and {"model", "metric", "mean_abs_change"} <= set(robustness.columns):
        jobs.append(FigureJob("robustness", draw_robustness, (robustness,)))
    return jobs, notes


def render(job: FigureJob, formats: Sequence[str]) -> tuple[dict[str, bytes], list[Note]]:
    """Draw one figure once and save it in every format; never raises an ``Exception``
    (a failure is a note and no files)."""
    import matplotlib as mpl

    try:
        with mpl.rc_context(RC):
            fig, notes = job.draw(*job.args)
            if fig is None:
                return {}, notes
            _fix_layout(fig)
            # Labels the layout engine let out of the canvas (long tick labels beside an
            # equal-aspect heatmap) are brought back by saving the tight box, found once.
            box = fig.get_tightbbox(fig._get_renderer()).padded(0.05)
            files = {}
            for fmt in formats:
                buffer = io.BytesIO()
                fig.savefig(buffer, format=fmt, dpi=DPI, metadata=_METADATA[fmt], bbox_inches=box)
                files[fmt] = buffer.getvalue()
            return files, notes
    except Exception as err:
        return {}, [(None, f"drawing failed ({type(err).__name__}: {err})", "left out")]


def _worker_init() -> None:
    # Ctrl-C is the parent's to handle: it cancels the queue and cleans up; a worker
    # finishes its figure and exits with the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _main_not_rerun() -> Iterator[None]:
    """Start workers without re-running the user's ``__main__``.

    A "forkserver" or "spawn" worker runs the parent's main script again (as
    ``__mp_main__``) before its first job; a script without an
    ``if __name__ == "__main__":`` guard would then rank all over again in every worker.
    Figure jobs only need this package, so while the workers start (on the first submit)
    the main module shows no file or spec, and ``multiprocessing`` has nothing to re-run.
    """
    main = sys.modules.get("__main__")
    saved = {k: main.__dict__[k] for k in ("__file__", "__spec__") if k in main.__dict__} if main is not None else {}
    if main is not None:
        main.__dict__.pop("__file__", None)
        main.__spec__ = None
    try:
        yield
    finally:
        if main is not None:
            for key in ("__file__", "__spec__"):
                if key in saved:
                    main.__dict__[key] = saved[key]


def _pool(workers: int) -> ProcessPoolExecutor:
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if context.get_start_method() == "forkserver":
        # Workers fork from a server that has imported matplotlib and this module once.
        context.set_forkserver_preload(["wefe_same.output.writer", "matplotlib.figure",
                                        "matplotlib.backends.backend_agg"])
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init)


@contextlib.contextmanager
def rendering(jobs: Sequence[FigureJob], formats: Sequence[str], workers: int = 1
              ) -> Iterator[Callable[[], list[tuple[dict[str, bytes], list[Note]]]]]:
    """Start rendering every job, in worker processes when ``workers > 1``; yields
    ``collect()``, which returns the results in job order. The caller works meanwhile
    (the results folder writes its CSV tables while the workers draw).

    Workers that cannot start or die (e.g. a script without an
    ``if __name__ == "__main__":`` guard, which every spawned worker re-runs) cost time,
    not figures: their jobs are drawn in this process, with a note. Leaving the block
    early (an error, Ctrl-C) cancels what has not started.
    """
    if workers <= 1 or len(jobs) <= 1:
        yield lambda: [render(job, formats) for job in jobs]
        return

    def here(job: FigureJob, err: BaseException) -> tuple[dict[str, bytes], list[Note]]:
        files, notes = render(job, formats)
        first = next((line.strip() for line in str(err).splitlines() if line.strip()), "")
        return files, [*notes, (None, f"worker process failed ({type(err).__name__}: {first})",
                                "drawn in this process")]

    pool = None
    failure: Exception | None = None
    try:
        # Ctrl-C waits until the workers are started: leaving then would orphan workers that
        # are still being born (each printing a traceback when the parent's locks are gone).
        with signals_deferred():
            pool = _pool(min(workers, len(jobs)))
            # The costliest first, so that no worker is left with a big one at the end.
            order = sorted(range(len(jobs)), key=lambda i: -jobs[i].cost)
            with _main_not_rerun():
                futures: dict[int, Future] = {i: pool.submit(render, jobs[i], tuple(formats)) for i in order}
    except BaseException as err:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        if not isinstance(err, Exception):
            raise
        failure = err  # no pool: everything here
    if failure is not None:
        yield lambda: [here(job, failure) for job in jobs]
        return

    def collect() -> list[tuple[dict[str, bytes], list[Note]]]:
        results = []
        for i, job in enumerate(jobs):
            try:
                results.append(futures[i].result())
            except Exception as err:  # a broken pool or an unpicklable job: draw it here instead
                results.append(here(job, err))
        return results

    try:
        yield collect
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def note_messages(stems: dict[Note, list[str]]) -> list[str]:
    """One line per (what, how, figures), naming every model it concerns.

    >>> note_messages({("a", "no values", "shown as missing"): ["scores_WEAT", "scores_RND"],
    ...                ("b", "no values", "shown as missing"): ["scores_WEAT", "scores_RND"],
    ...                (None, "drawing failed (ValueError: x)", "left out"): ["robustness"]})
    ["figures scores_WEAT, scores_RND: no values for models 'a', 'b'; shown as missing", \
'figure robustness: drawing failed (ValueError: x); left out']
    """
    models: dict[tuple[str, str, tuple[str, ...]], list[str | None]] = {}
    for (model, what, how), where in stems.items():
        models.setdefault((what, how, tuple(where)), []).append(model)
    messages = []
    for (what, how, where), names in models.items():
        shown = ", ".join(where) if len(where) <= 6 else f"{', '.join(where[:3])} and {len(where) - 3} more"
        place = f"figure{'s' if len(where) > 1 else ''} {shown}: " if where else "figures: "
        named = [n for n in names if n is not None]
        whom = (f" for model{'s' if len(named) > 1 else ''} " + ", ".join(repr(n) for n in named)) if named else ""
        messages.append(f"{place}{what}{whom}; {how}")
    return messages


@contextlib.contextmanager
def figures_rendering(result: RankResult, *, formats: Sequence[str] = FIGURE_FORMATS,
                      workers: int = 1) -> Iterator[Callable[[Path], list[str]]]:
    """Start drawing every figure of the results folder in each format; yields
    ``save(folder)`` (:func:`write_figures`), which writes them there and returns the
    warnings (one line each, for the manifest and the user)."""
    formats = check_formats(formats) if formats else ()
    jobs, notes = figure_jobs(result) if formats else ([], [])
    with rendering(jobs, formats, workers) as collect:
        yield functools.partial(write_figures, jobs=jobs, notes=notes, collect=collect)


def write_figures(folder: Path, *, jobs: Sequence[FigureJob], notes: list[Note],
                  collect: Callable[[], list[tuple[dict[str, bytes], list[Note]]]]) -> list[str]:
    """Write the figures that ``collect()`` returns (drawn here, or waited for from the
    workers) into ``folder``; returns the warnings."""
    stems: dict[Note, list[str]] = {note: [] for note in notes}
    for job, (files, job_notes) in zip(jobs, collect()):
        if files:
            folder.mkdir(exist_ok=True)
        for fmt, data in files.items():
            (folder / f"{job.stem}.{fmt}").write_bytes(data)
        for note in job_notes:
            stems.setdefault(note, []).append(job.stem)
    return note_messages(stems)


# -- the folder ---------------------------------------------------------------------------


def write_results(result: RankResult, out: str | Path, *, formats: Sequence[str] | str = FIGURE_FORMATS,
                  figure_workers: int = 1) -> Path:
    """Write the results folder of ``result`` at ``out`` (see :meth:`RankResult.save`)."""
    formats = check_formats(formats) if formats else ()
    workers = check_int(figure_workers, "figure_workers", "save", minimum=1)
    manifest = dict(result.manifest)

    said: list[str] = []

    def write(folder: Path) -> None:
        # The figure workers draw while this process writes the tables.
        with figures_rendering(result, formats=formats, workers=workers) as save_figures:
            write_csv_tables(result, folder)
            said.extend(note_messages({note: [] for note in write_tables(result, folder / "tables")}))
            said.extend(save_figures(folder / "figures"))
        earlier = list(manifest.get("warnings", []))
        manifest["warnings"] = list(dict.fromkeys([*earlier, *result.warnings, *said]))
        manifest["figure_formats"] = list(formats)

    written = write_folder(out, write, manifest, kind="results")
    # Warned once the folder is in place: even with warnings turned into errors, the
    # results are saved.
    for message in said:
        warnings.warn(message, WefeSameWarning, stacklevel=3)
    return written
