"""Quality benchmark files: word-similarity pairs and analogy questions.

Two kinds of file, read here and nowhere else:

- **similarity**: one pair per line, ``word1 word2 score`` separated by tabs, semicolons,
  commas or spaces (the first data line decides); ``#`` comments and blank lines are
  skipped; an optional header line (no number after the two words) is skipped; extra
  columns are ignored. The score is the first numeric column after the two words
  (SimVerb's ``take remove V 6.81 …`` and SimLex-999's full ``old new A 1.58 …`` read as
  intended), or the column given by ``score_column``.
- **analogy**: one question per line, ``a b c d`` (a is to b as c is to d), optionally in
  sections that start with ``: name`` lines (the Google layout); or the MSR layout
  ``a b c TAG d`` whose TAG (e.g. ``JJ_JJR``) becomes the section.

A malformed line raises :class:`~wefe_same.errors.QualityError` naming the file and the
line. Casing and out-of-vocabulary words are the evaluation's business, not the loader's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

import numpy as np

from wefe_same.errors import QualityError
from wefe_same.validation import BENCHMARK_FILE_MAX_BYTES, check_regular_file, parse_decimal

Kind = Literal["similarity", "analogy"]
KINDS: tuple[Kind, ...] = ("similarity", "analogy")
#: Separators tried on the first data line of a similarity file, in this order; else spaces.
DELIMITERS = ("\t", ";", ",")

BAD_SIMILARITY_LINE = "{path}:{line}: expected 'word1 word2 score'{why}, got {text!r}"
BAD_ANALOGY_LINE = "{path}:{line}: expected an analogy 'a b c d' (or MSR 'a b c TAG d'){why}, got {text!r}"


@dataclass(frozen=True, eq=False)
class SimilarityDataset:
    """Word pairs with gold similarity scores.

    Attributes
    ----------
    name : str
    path : str
    word1, word2 : tuple of str, length n
    scores : ndarray of float64, shape (n,)
    lines : tuple of int, length n
        The line of each pair in ``path`` (1-based).
    """

    name: str
    path: str
    word1: tuple[str, ...]
    word2: tuple[str, ...]
    scores: np.ndarray
    lines: tuple[int, ...]

    kind: ClassVar[Kind] = "similarity"

    def __len__(self) -> int:
        return len(self.word1)


@dataclass(frozen=True, eq=False)
class AnalogyDataset:
    """Analogy questions "a is to b as c is to d".

    Attributes
    ----------
    name : str
    path : str
    questions : tuple of (str, str, str, str), length n
    sections : tuple of str, length n
        The section of each question ("" when the file has none).
    lines : tuple of int, length n
        The line of each question in ``path`` (1-based).
    """

    name: str
    path: str
    questions: tuple[tuple[str, str, str, str], ...]
    sections: tuple[str, ...]
    lines: tuple[int, ...]

    kind: ClassVar[Kind] = "analogy"

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def section_names(self) -> list[str]:
        """The named sections in file order."""
        return [s for s in dict.fromkeys(self.sections) if s]


def _data_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, stripped text) of every line that is neither blank nor a ``#`` comment."""
    if not path.exists():
        raise QualityError(f"no such benchmark file {path}")
    check_regular_file(path, what="benchmark file", error=QualityError, max_bytes=BENCHMARK_FILE_MAX_BYTES)
    try:
        with open(path, encoding="utf-8-sig") as fh:
            for lineno, raw in enumerate(fh, start=1):
                text = raw.strip()
                if text and not text.startswith("#"):
                    yield lineno, text
    except UnicodeDecodeError as err:
        raise QualityError(f"{path}: not a UTF-8 text file ({err.reason} at byte {err.start})") from None


def _sniff_delimiter(text: str) -> str | None:
    return next((d for d in DELIMITERS if d in text), None)


def _split(text: str, delimiter: str | None) -> list[str]:
    if delimiter is None:
        return text.split()
    return [f.strip() for f in text.split(delimiter)]


def _numeric_like(field: str) -> bool:
    """What float() takes ("1_000", "nan"): such a first line is data with a bad number, not a header."""
    try:
        float(field)
    except ValueError:
        return False
    return True


def _first_number(fields: list[str]) -> int | None:
    return next((i for i in range(2, len(fields)) if parse_decimal(fields[i]) is not None), None)


def load_similarity(
    path: str | Path, *, name: str | None = None, score_column: int | None = None
) -> SimilarityDataset:
    """Read a word-similarity file (WordSim353, SimLex-999, MEN, RG65, RW, MTurk, SimVerb…).

    Parameters
    ----------
    path : str or Path
    name : str, optional
        Name used in result tables (default: the file stem).
    score_column : int, optional
        0-based column of the gold score; default: the first numeric column after the
        two words, found on the first data line.

    Returns
    -------
    SimilarityDataset

    Raises
    ------
    QualityError
        Naming ``path:line`` for a line without two words and a number in the score
        column, and for a file without any pair.
    """
    path = Path(path)
    if score_column is not None and (not isinstance(score_column, int) or score_column < 2):
        raise QualityError(f"{path}: score_column must be an integer >= 2 (after the two words), got {score_column!r}")
    delimiter: str | None = None
    column = score_column
    first = True
    word1: list[str] = []
    word2: list[str] = []
    scores: list[float] = []
    lines: list[int] = []
    for lineno, text in _data_lines(path):
        if first:
            delimiter = _sniff_delimiter(text)
        fields = _split(text, delimiter)
        if first and (len(fields) < 3 or not any(map(_numeric_like, fields[2:]))) and len(fields) >= 2:
            first = False  # a header line: column names, no number after the two words
            continue
        first = False
        if column is None:
            column = _first_number(fields)
        why = ""
        if len(fields) < 3 or column is None:
            pass
        elif len(fields) <= column:
            why = f" with the score in column {column + 1}"
        elif not fields[0] or not fields[1]:
            why = " (an empty word)"
        elif (score := parse_decimal(fields[column])) is None:  # float() would take "1_000", "١٢", "nan"
            why = f" with a number in column {column + 1}"
        else:
            word1.append(fields[0])
            word2.append(fields[1])
            scores.append(score)
            lines.append(lineno)
            continue
        raise QualityError(BAD_SIMILARITY_LINE.format(path=path, line=lineno, why=why, text=text))
    if not word1:
        raise QualityError(f"{path}: no word pair found (expected lines 'word1 word2 score')")
    return SimilarityDataset(name or path.stem, str(path), tuple(word1), tuple(word2),
                             np.array(scores, dtype=np.float64), tuple(lines))


def load_analogy(path: str | Path, *, name: str | None = None) -> AnalogyDataset:
    """Read an analogy file: Google ``questions-words.txt`` layout or MSR.

    Lines ``: name`` start a section; other lines hold ``a b c d`` or, in the MSR
    layout, ``a b c TAG d`` (the TAG is the section when no ``:`` line names one).
    Sections are optional.

    Parameters
    ----------
    path : str or Path
    name : str, optional
        Name used in result tables (default: the file stem).

    Returns
    -------
    AnalogyDataset

    Raises
    ------
    QualityError
        Naming ``path:line`` for a line that is not 4 (or 5) whitespace-separated words,
        and for a file without any question.
    """
    path = Path(path)
    questions: list[tuple[str, str, str, str]] = []
    sections: list[str] = []
    lines: list[int] = []
    section = ""
    for lineno, text in _data_lines(path):
        if text.startswith(":"):
            section = text.lstrip(": ").strip()  # as gensim: ": capital-world" -> "capital-world"
            continue
        fields = text.split()
        if len(fields) == 4:
            a, b, c, d = fields
            questions.append((a, b, c, d))
            sections.append(section)
        elif len(fields) == 5 and parse_decimal(fields[3]) is None:
            a, b, c, tag, d = fields
            questions.append((a, b, c, d))
            sections.append(section or tag)
        else:
            why = f" ({len(fields)} fields)"
            raise QualityError(BAD_ANALOGY_LINE.format(path=path, line=lineno, why=why, text=text))
        lines.append(lineno)
    if not questions:
        raise QualityError(f"{path}: no analogy question found (expected lines 'a b c d')")
    return AnalogyDataset(name or path.stem, str(path), tuple(questions), tuple(sections), tuple(lines))


def detect_kind(path: str | Path, *, sample: int = 50) -> Kind:
    """Whether a file holds similarity pairs or analogy questions, from its first lines.

    A ``: section`` line, or lines of 4 words (or MSR's 5 with no number), mean analogy;
    lines with a number after the two words mean similarity. Ambiguous files raise.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
    ...     _ = fh.write("# pairs\\ntiger,cat,7.35\\n")
    >>> detect_kind(fh.name)
    'similarity'
    >>> os.remove(fh.name)
    """
    path = Path(path)
    votes = {"similarity": 0, "analogy": 0}
    delimiter: str | None = None
    for k, (_, text) in enumerate(_data_lines(path)):
        if k >= sample:
            break
        if text.startswith(":"):
            return "analogy"
        if k == 0:
            delimiter = _sniff_delimiter(text)
        fields = _split(text, delimiter)
        if len(fields) >= 3 and _first_number(fields) is not None:
            votes["similarity"] += 1
        elif len(text.split()) in (4, 5) and _first_number(text.split()) is None:
            votes["analogy"] += 1
    if votes["similarity"] == votes["analogy"]:
        raise QualityError(
            f"{path}: cannot tell whether it holds similarity pairs ('word1 word2 score') or analogy "
            "questions ('a b c d'); write sim:PATH or analogy:PATH"
        )
    return "similarity" if votes["similarity"] > votes["analogy"] else "analogy"
