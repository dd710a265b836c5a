"""Words as UTF-8 under ``LoadOptions.unicode_errors``, every lenient decoding reported: one
:class:`~wefe_same.errors.WefeSameWarning` per pass and the list in the source's
``decode_warnings`` and ``describe()``."""

from __future__ import annotations

import contextlib
import json
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

from wefe_same.errors import ModelError, WefeSameWarning
from wefe_same.models.specs import UnicodeErrors
from wefe_same.validation import check_choice

NOT_UTF8 = ("{where}: word {raw!r} is not valid UTF-8; decode it leniently with --unicode-errors "
            "replace or ignore (LoadOptions(unicode_errors=...))")
DECODED = "{where}: {raw!r} decoded as {word}"
DECODED_SUMMARY = ("{path}: {n} word(s) not valid UTF-8 decoded leniently (unicode_errors={mode!r}): {examples}")
#: At most this many decode warnings are kept as text; all are counted.
MAX_DECODE_WARNINGS = 100

UNICODE_ERRORS = ("strict", "replace", "ignore")


class _Decoder:
    """Decodes words as UTF-8 under ``unicode_errors`` and records lenient decodings.

    A file is read from its start on every pass, so a warning at position p (line or
    record number) is new only when p is beyond every position noted before: counting
    stays exact over repeated passes with O(1) memory.
    """

    def __init__(self, unicode_errors: UnicodeErrors, *, lenient: str | None = None) -> None:
        self.unicode_errors = check_choice(unicode_errors, "unicode_errors", "LoadOptions", UNICODE_ERRORS)
        #: The error handler of a lenient decoding when another reader decodes the word
        #: (gensim's fastText loader uses "backslashreplace"), so the warning shows its result.
        self.lenient = lenient
        self.warnings: list[str] = []
        self.count = 0
        self._noted_to = 0

    def __call__(self, raw: bytes, position: int, where: Callable[[], str]) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            if self.unicode_errors == "strict":
                raise ModelError(NOT_UTF8.format(where=where(), raw=raw)) from None
        word = raw.decode("utf-8", self.lenient or self.unicode_errors)
        if position > self._noted_to:
            self._noted_to = position
            self.count += 1
            if len(self.warnings) < MAX_DECODE_WARNINGS:
                self.warnings.append(DECODED.format(where=where(), raw=raw, word=ascii(word)))
        return word

    def describe(self) -> dict[str, str]:
        """For the manifest: how many words were decoded leniently and the first ones (JSON)."""
        if not self.count:
            return {}
        return {"decode_warnings": str(self.count), "decoded_words": json.dumps(self.warnings[:10], ensure_ascii=True)}

    @contextlib.contextmanager
    def reporting(self, path: Path) -> Iterator[None]:
        """One :class:`WefeSameWarning` after a pass that decoded new words leniently, so
        that a word decoded by ``unicode_errors`` is never silent (the source's
        ``decode_warnings`` and the manifest keep the list)."""
        before, shown = self.count, len(self.warnings)
        yield
        if self.count > before:
            shown_words = [w[len(str(path)):].lstrip(":").strip() if w.startswith(str(path)) else w
                           for w in self.warnings[shown:shown + 3]]
            examples = "; ".join(f"line {e}" if e[:1].isdigit() else e for e in shown_words) or "see the manifest"
            warnings.warn(DECODED_SUMMARY.format(n=self.count - before, path=path, mode=self.unicode_errors,
                                                 examples=examples), WefeSameWarning, stacklevel=4)
