"""What the streamed file sources (text and word2vec binary) share: path, options, identity,
provenance, and the one-pass :meth:`~StreamedFileSource.lookup` that stops when every
requested word is found, so memory stays bounded whatever the file size.

These two readers are written here rather than calling gensim's ``load_word2vec_format``,
which builds the whole matrix; their output is checked against gensim's in the tests.
"""

from __future__ import annotations

import contextlib
import gzip
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from wefe_same.models.base import ModelSource
from wefe_same.models.readers.decoding import _Decoder
from wefe_same.models.readers.files import check_model_file, file_description, file_identity, open_stream
from wefe_same.models.specs import UnicodeErrors


class StreamedFileSource(ModelSource):
    """What the streamed file sources share: path, options, identity, provenance."""

    kind: str
    has_vocabulary = True

    def __init__(self, name: str, path: str | Path, *, unicode_errors: UnicodeErrors = "strict",
                 key_prefix: str = "") -> None:
        self.name = name
        self.path = check_model_file(name, Path(path))
        self.unicode_errors = unicode_errors
        self.key_prefix = key_prefix
        self._decode = _Decoder(unicode_errors)
        #: Whether the file is gzip, known once it was opened (None before).
        self.gzip: bool | None = None

    @contextlib.contextmanager
    def _open(self) -> Iterator[BinaryIO]:
        """:func:`open_stream`, noting whether the file is gzip for :meth:`describe`."""
        with open_stream(self.path) as fh:
            self.gzip = isinstance(fh, gzip.GzipFile)
            yield fh

    @property
    def decode_warnings(self) -> list[str]:
        """"FILE:LINE: b'...' decoded as '...'" for the first MAX_DECODE_WARNINGS lenient decodings."""
        return list(self._decode.warnings)

    def _key(self, word: str) -> str | None:
        """The word a file key stands for (``/c/en/cat`` → ``cat``), or None when the key
        lacks the prefix and is not visible through this source."""
        if not self.key_prefix:
            return word
        return word[len(self.key_prefix):] if word.startswith(self.key_prefix) else None

    def identity(self) -> dict[str, Any]:
        """The cache key: kind, :func:`file_identity` (stats and a content hash), the reading options."""
        return file_identity(self.kind, self.path, unicode_errors=self.unicode_errors,
                             key_prefix=self.key_prefix)

    def describe(self) -> dict[str, str]:
        """Provenance for the manifest; opens no file (gzip as found when it was read,
        else as its name says)."""
        out = file_description(self.kind, self.path)
        if self.gzip if self.gzip is not None else self.path.suffix.lower() == ".gz":
            out["compression"] = "gzip"
        if self.key_prefix:
            out["key_prefix"] = self.key_prefix
        if self.unicode_errors != "strict":
            out["unicode_errors"] = self.unicode_errors
        out.update(self._decode.describe())
        return out

    def _rows(self, keep: Callable[[str], bool], dtype: type) -> Iterator[tuple[str, np.ndarray]]:
        raise NotImplementedError

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        """Vectors (float64) of the ``words`` in the file, in one pass that stops when all are found.

        A word that appears twice keeps its first vector, as in gensim.
        """
        wanted = set(words)
        found: dict[str, np.ndarray] = {}
        if not wanted:
            return found
        with self._decode.reporting(self.path):
            for word, vec in self._rows(lambda w: w in wanted and w not in found, np.float64):
                found[word] = vec
                if len(found) == len(wanted):
                    break
        return found

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The first ``limit`` words of the file (all when None) and their vectors.

        Returns
        -------
        words : list of str, length n
        vectors : ndarray of float32, shape (n, d)
        """
        words: list[str] = []
        rows: list[np.ndarray] = []
        if limit is None or limit > 0:
            # float32 while reading: 300 000 rows of 300 floats would take 720 MB as float64.
            with self._decode.reporting(self.path):
                for word, vec in self._rows(lambda w: True, np.float32):
                    words.append(word)
                    rows.append(vec)
                    if limit is not None and len(words) >= limit:
                        break
        return words, (np.vstack(rows) if rows else np.zeros((0, 0), dtype=np.float32))
