"""Drawing the figures of the results folder: a figure job, drawn once and saved in
every format, here or in worker processes.

Each figure is drawn once and saved in every format asked, to bytes that depend only on
the data (no dates, fixed SVG hash salt). With ``workers > 1`` the figures are drawn in
worker processes ("forkserver": no copy of the parent's threads or locks); a figure job
is a picklable ``(stem, function, args)``.

A figure is redrawn only when its data changed: :func:`job_digest` keys each job by its
input tables, the figure code and matplotlib's version, and the writer reuses the files
of the folder it replaces when the key is the same (a rerun with unchanged data draws
nothing and does not import matplotlib).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import multiprocessing
import signal
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pandas as pd

from wefe_same.interrupts import signals_deferred
from wefe_same.output.notes import Note
from wefe_same.processes import exit_with_parent
from wefe_same.validation import as_list, check_choice

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

#: Every figure format the results folder can hold.
FIGURE_FORMATS = ("png", "pdf", "svg")
#: Settings of every saved figure: byte-identical files for the same data.
RC: dict[RcKeyType, Any] = {"svg.hashsalt": "wefe_same", "svg.fonttype": "none"}
DPI = 150
_METADATA = {"png": {"Software": None}, "pdf": {"CreationDate": None, "Producer": None},
             "svg": {"Date": None}}


class FigureJob(NamedTuple):
    """One figure: ``draw(*args) -> (Figure or None, notes)``; picklable for worker processes."""

    stem: str
    draw: Callable[..., tuple[Figure | None, list[Note]]]
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


#: The modules whose code decides what a figure looks like: part of every figure's key.
_FIGURE_CODE = ("figures.py", "figure_jobs.py", "rendering.py")


def _feed(h: Any, value: Any) -> None:
    """Feed ``value`` (tables, sequences, scalars) to the hash ``h``, unambiguously."""
    if isinstance(value, pd.DataFrame):
        h.update(f"<DataFrame {value.shape} {list(value.columns)!r} {list(value.dtypes.astype(str))!r}"
                 f" {list(value.index.names)!r}>".encode())
        h.update(pd.util.hash_pandas_object(value, index=True).to_numpy().tobytes())
    elif isinstance(value, pd.Series):
        h.update(f"<Series {value.shape} {value.name!r} {value.dtype} {list(value.index.names)!r}>".encode())
        h.update(pd.util.hash_pandas_object(value, index=True).to_numpy().tobytes())
    elif isinstance(value, list | tuple):
        h.update(f"<{type(value).__name__} {len(value)}>".encode())
        for item in value:
            _feed(h, item)
    else:
        h.update(f"<{type(value).__name__} {value!r}>".encode())


def job_digest(job: FigureJob, formats: Sequence[str]) -> str:
    """The key of a figure's files: its stem, draw function, input data and formats, the
    figure code of this package and matplotlib's version (sha256, hex)."""
    h = hashlib.sha256()
    _feed(h, [job.stem, f"{job.draw.__module__}.{job.draw.__qualname__}", list(formats), _code_key(), RC, DPI])
    _feed(h, list(job.args))
    return h.hexdigest()


@functools.cache
def _code_key() -> str:
    """matplotlib's version and the figure code's sha256: the same for every figure of a
    process (hashed once, not once per figure)."""
    here = Path(__file__).resolve().parent
    code = b"".join(hashlib.sha256((here / name).read_bytes()).digest() for name in _FIGURE_CODE)
    return version("matplotlib") + ":" + hashlib.sha256(code).hexdigest()


def _fix_layout(fig: Figure) -> None:
    """Lay the figure out once, then keep that layout for every format (a layout engine
    would redo it, with an extra draw, in each ``savefig``).

    The engine is run as ``Figure.draw`` runs it first (a ``ValueError`` ignored), without
    the rest of a draw: the files are byte-identical to laying out by
    ``draw_without_rendering`` (tests/output/test_paper_figures.py), and the layout step
    costs about half as much (benchmarks/bench_figure_layout.py).
    """
    engine = fig.get_layout_engine()
    if engine is not None and fig.axes:
        with contextlib.suppress(ValueError):
            engine.execute(fig)
    fig.set_layout_engine("none")  # keeps the positions found ...
    fig.set_layout_engine(None)  # ... and drops the placeholder engine that still costs a draw


def render(job: FigureJob, formats: Sequence[str]) -> tuple[dict[str, bytes], list[Note]]:
    """Draw one figure once and save it in every format; never raises an ``Exception``
    (a failure is a note and no files)."""
    import matplotlib as mpl

    # matplotlib's own warnings (a layout it could not apply beside long labels, a glyph
    # its font lacks) become notes of this figure, in the tool's words: not raw lines.
    with warnings.catch_warnings(record=True) as caught:
        try:
            with mpl.rc_context(RC):
                fig, notes = job.draw(*job.args)
                if fig is None:
                    return {}, notes
                _fix_layout(fig)
                # Labels the layout engine let out of the canvas (long tick labels beside an
                # equal-aspect heatmap) are brought back by saving the tight box, found once.
                box = fig.get_tightbbox(fig._get_renderer()).padded(0.05)  # type: ignore[attr-defined]
                files = {}
                for fmt in formats:
                    buffer = io.BytesIO()
                    fig.savefig(buffer, format=fmt, dpi=DPI, metadata=_METADATA[fmt], bbox_inches=box)
                    files[fmt] = buffer.getvalue()
        except Exception as err:
            return {}, [(None, f"drawing failed ({type(err).__name__}: {err})", "left out")]
    return files, [*notes, *dict.fromkeys(note for w in caught if (note := drawing_note(w)) is not None)]


#: matplotlib's warnings whose cause in a results figure is known: (start of its text, note).
_KNOWN_DRAWING_WARNINGS: tuple[tuple[str, Note], ...] = (
    ("constrained_layout not applied", (None, "its labels (long model or metric names) leave the plot no room",
                                        "drawn without matplotlib's layout: labels may overlap")),
    ("Tight layout not applied", (None, "its labels (long model or metric names) leave the plot no room",
                                  "drawn without matplotlib's layout: labels may overlap")),
    ("Glyph", (None, "a character of a name is missing from matplotlib's font", "drawn as an empty box")),
)


def drawing_note(caught: warnings.WarningMessage) -> Note | None:
    """A warning raised while a figure was drawn, as a note of that figure; None for a
    notice about matplotlib's own API (a deprecation), which is not the user's to act on."""
    if issubclass(caught.category, (DeprecationWarning, PendingDeprecationWarning, FutureWarning)):
        return None
    text = " ".join(str(caught.message).split())
    for start, note in _KNOWN_DRAWING_WARNINGS:
        if text.startswith(start):
            return note
    return (None, f"matplotlib warned: {text}", "drawn anyway")


def _worker_init() -> None:
    # Ctrl-C is the parent's to handle: it cancels the queue and cleans up; a worker
    # finishes its figure and exits with the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()  # a parent killed with SIGKILL leaves no figure worker behind


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
        context.set_forkserver_preload(["wefe_same.output.figure_jobs", "matplotlib.figure",
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
    assert pool is not None  # no failure: the pool started

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

