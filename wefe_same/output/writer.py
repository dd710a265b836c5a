"""The writer of the results folder.

Order: every CSV table, then the LaTeX/Markdown tables, then the figures, then
``report.html`` (:mod:`.report_html`), then ``manifest.json`` (with the inventory of
everything written); the word-level table is written by a thread meanwhile, and with
figure workers the figures are drawn while the tables are written. The folder is staged
beside its destination and swapped into place (:mod:`wefe_same.output.folder`), so it is the
earlier folder or the new one, never half of each.

A finished run is never lost to a figure: a figure that fails, or has nothing to show
for a model (every value NaN), shows the model as missing or is left out, with a
:class:`~wefe_same.errors.WefeSameWarning` and a line in ``manifest["warnings"]``.

Lean by default: the paper figures in PNG and PDF (``figures="all"`` adds the per-metric
and per-model figures, and SVG unless ``formats`` says otherwise), the word-level table
as Parquet and the long tables gzipped (``full_tables=True``: plain CSV). A figure whose
key (:func:`~wefe_same.output.rendering.job_digest`) is recorded in the manifest of the
folder being replaced, with its files there, is copied, not drawn again.

The parts: :mod:`.tables` (CSV), :mod:`.latex` (LaTeX and Markdown), :mod:`.figure_jobs`
(what each figure draws), :mod:`.rendering` (drawing them, here or in worker processes).
"""

from __future__ import annotations

import contextlib
import functools
import json
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from wefe_same.errors import WefeSameWarning
from wefe_same.interrupts import signals_deferred
from wefe_same.output.figure_jobs import FIGURE_SETS, draw_robustness, draw_stability, figure_jobs
from wefe_same.output.folder import write_folder
from wefe_same.output.latex import write_tables
from wefe_same.output.notes import Note, note_messages
from wefe_same.output.rendering import (
    FIGURE_FORMATS,
    FigureJob,
    check_formats,
    job_digest,
    render,
    rendering,
)
from wefe_same.output.report_html import write_report
from wefe_same.output.tables import ResultTables, write_csv_tables, write_word_table
from wefe_same.output.tables import safe_name as _safe  # noqa: F401 (the old name; tests import it)
from wefe_same.validation import check_choice, check_int

# The names of the parts stay importable from here, the writer's former home.
__all__ = ["FIGURE_SETS", "check_formats", "draw_robustness", "draw_stability", "figure_jobs", "render",
           "write_csv_tables", "write_results", "write_tables"]


#: Figure formats per figure set, when none are given.
DEFAULT_FORMATS = {"paper": ("png", "pdf"), "all": FIGURE_FORMATS}
Drawn = tuple[dict[str, bytes], list[Note]]


def default_formats(figures: str) -> tuple[str, ...]:
    """The figure formats of a figure set when none are given (``paper``: PNG and PDF)."""
    return DEFAULT_FORMATS[check_choice(figures, "figures", "save", FIGURE_SETS)]


def previous_figures(out: Path) -> dict[str, dict]:
    """The figures recorded in the manifest of an earlier results folder at ``out``:
    {stem: {"digest", "notes"}}; empty when there is none (or it cannot be read)."""
    try:
        recorded = json.loads((out / "manifest.json").read_text(encoding="utf-8")).get("figure_digests", {})
    except (OSError, ValueError, AttributeError):
        return {}
    return recorded if isinstance(recorded, dict) else {}


def _reused(job: FigureJob, digest: str, formats: Sequence[str], out: Path, earlier: dict[str, dict]) -> Drawn | None:
    """The files and notes of ``job`` from the earlier folder, when its key is the same."""
    entry = earlier.get(job.stem)
    if not isinstance(entry, dict) or entry.get("digest") != digest:
        return None
    try:
        files = {fmt: (out / "figures" / f"{job.stem}.{fmt}").read_bytes() for fmt in formats} \
            if entry.get("drawn", True) else {}
        notes = [tuple(note) for note in entry.get("notes", [])]
    except (OSError, TypeError):
        return None
    return files, notes


@contextlib.contextmanager
def figures_rendering(result: ResultTables, *, formats: Sequence[str] = FIGURE_FORMATS, workers: int = 1,
                      figures: str = "paper", earlier: Path | None = None
                      ) -> Iterator[Callable[[Path], tuple[list[str], dict[str, dict]]]]:
    """Start drawing the figures of the set ``figures`` in each format; yields
    ``save(folder)`` (:func:`write_figures`), which writes them there and returns the
    warnings (one line each, for the manifest and the user) and each figure's key.

    ``earlier``: the results folder about to be replaced; its figures whose keys are
    unchanged are copied instead of drawn.
    """
    formats = check_formats(formats) if formats else ()
    jobs, notes = figure_jobs(result, figures) if formats else ([], [])
    digests = [job_digest(job, formats) for job in jobs]
    recorded = previous_figures(earlier) if earlier is not None else {}
    reused = [_reused(job, d, formats, earlier, recorded) if earlier is not None else None
              for job, d in zip(jobs, digests)]
    todo = [job for job, r in zip(jobs, reused) if r is None]
    with rendering(todo, formats, workers) as collect:
        def gather() -> list[Drawn]:
            drawn = iter(collect())
            return [r if r is not None else next(drawn) for r in reused]

        yield functools.partial(write_figures, jobs=jobs, notes=notes, collect=gather, digests=digests)


def write_figures(folder: Path, *, jobs: Sequence[FigureJob], notes: list[Note],
                  collect: Callable[[], list[Drawn]], digests: Sequence[str] = ()
                  ) -> tuple[list[str], dict[str, dict]]:
    """Write the figures that ``collect()`` returns (drawn here, waited for from the
    workers, or reused) into ``folder``; returns the warnings and {stem: key and notes}."""
    stems: dict[Note, list[str]] = {note: [] for note in notes}
    keys: dict[str, dict] = {}
    for job, digest, (files, job_notes) in zip(jobs, list(digests) or [""] * len(jobs), collect()):
        if files:
            folder.mkdir(exist_ok=True)
        for fmt, data in files.items():
            (folder / f"{job.stem}.{fmt}").write_bytes(data)
        for note in job_notes:
            stems.setdefault(note, []).append(job.stem)
        if digest:
            keys[job.stem] = {"digest": digest, "drawn": bool(files), "notes": [list(n) for n in job_notes]}
    return note_messages(stems), keys


# -- the folder ---------------------------------------------------------------------------


@contextlib.contextmanager
def _in_background() -> Iterator[Callable[[Callable[[], None]], None]]:
    """A thread that runs the writes handed to it (``later(write)``), in order. Leaving the
    block waits for every one, Ctrl-C deferred meanwhile (they write into the staging
    folder, which is removed after an error or an interrupt), and re-raises the first error."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wefe-same-writer")
    pending: list[Future] = []
    try:
        yield lambda write: pending.append(pool.submit(write))
    except BaseException:
        with signals_deferred():
            pool.shutdown(wait=True, cancel_futures=True)
        raise
    with signals_deferred():
        pool.shutdown(wait=True)
    for done in pending:
        done.result()


def write_results(result: ResultTables, out: str | Path, *, formats: Sequence[str] | str | None = None,
                  figure_workers: int = 1, figures: str = "paper", full_tables: bool = False) -> Path:
    """Write the results folder of ``result`` at ``out`` (see :meth:`RankResult.save`)."""
    formats = default_formats(figures) if formats is None else (check_formats(formats) if formats else ())
    check_choice(figures, "figures", "save", FIGURE_SETS)
    workers = check_int(figure_workers, "figure_workers", "save", minimum=1)
    manifest = dict(result.manifest)

    said: list[str] = []

    def write(folder: Path) -> None:
        # The figure workers draw while this process writes the tables; a thread writes the
        # word-level table and compresses the long CSV tables meanwhile (pyarrow and zlib
        # let go of the GIL: ~1.3 s of a 40-model run's saving, now beside the figures).
        with _in_background() as later, figures_rendering(result, formats=formats, workers=workers,
                                                          figures=figures, earlier=Path(out)) as save_figures:
            later(functools.partial(write_word_table, result, folder, full_tables=full_tables))
            write_csv_tables(result, folder, full_tables=full_tables, words=False, later=later)
            said.extend(note_messages({note: [] for note in write_tables(result, folder / "tables")}))
            figure_said, keys = save_figures(folder / "figures")
            said.extend(figure_said)
        earlier = list(manifest.get("warnings", []))
        manifest["warnings"] = list(dict.fromkeys([*earlier, *result.warnings, *said]))
        manifest["figure_formats"] = list(formats)
        manifest["figures"] = figures
        manifest["figure_digests"] = keys
        # Last, so that the page shows every warning; a page that fails is a warning too.
        report_said = write_report(result, folder, manifest)
        said.extend(report_said)
        manifest["warnings"] = list(dict.fromkeys([*manifest["warnings"], *report_said]))

    written = write_folder(out, write, manifest, kind="results")
    # Warned once the folder is in place: even with warnings turned into errors, the
    # results are saved.
    for message in said:
        warnings.warn(message, WefeSameWarning, stacklevel=3)
    return written
