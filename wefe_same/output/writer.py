"""The writer of the results folder.

Order: every CSV table, then the LaTeX/Markdown tables, then the figures, then
``report.html`` (:mod:`.report_html`), then ``manifest.json`` (with the inventory of
everything written); with figure workers, the figures are drawn while the tables are written. The folder is staged
beside its destination and swapped into place (:mod:`wefe_same.output.folder`), so it is the
earlier folder or the new one, never half of each.

A finished run is never lost to a figure: a figure that fails, or has nothing to show
for a model (every value NaN), shows the model as missing or is left out, with a
:class:`~wefe_same.errors.WefeSameWarning` and a line in ``manifest["warnings"]``.

The parts: :mod:`.tables` (CSV), :mod:`.latex` (LaTeX and Markdown), :mod:`.figure_jobs`
(what each figure draws), :mod:`.rendering` (drawing them, here or in worker processes).
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from wefe_same.errors import WefeSameWarning
from wefe_same.output.figure_jobs import draw_robustness, draw_stability, figure_jobs
from wefe_same.output.folder import write_folder
from wefe_same.output.latex import write_tables
from wefe_same.output.notes import Note, note_messages
from wefe_same.output.rendering import (
    FIGURE_FORMATS,
    FigureJob,
    check_formats,
    render,
    rendering,
)
from wefe_same.output.report_html import write_report
from wefe_same.output.tables import ResultTables, write_csv_tables
from wefe_same.output.tables import safe_name as _safe  # noqa: F401 (the old name; tests import it)
from wefe_same.validation import check_int

# The names of the parts stay importable from here, the writer's former home.
__all__ = ["check_formats", "draw_robustness", "draw_stability", "figure_jobs", "render", "write_csv_tables",
           "write_results", "write_tables"]


@contextlib.contextmanager
def figures_rendering(result: ResultTables, *, formats: Sequence[str] = FIGURE_FORMATS,
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


def write_results(result: ResultTables, out: str | Path, *, formats: Sequence[str] | str = FIGURE_FORMATS,
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
