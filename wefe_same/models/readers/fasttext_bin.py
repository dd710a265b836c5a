"""Facebook fastText ``.bin`` models, read with gensim after a checked walk of the header."""

from __future__ import annotations

import gzip
import struct
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource, StatusLookup
from wefe_same.models.readers.decoding import _Decoder
from wefe_same.models.readers.files import (
    CHUNK_BYTES,
    FASTTEXT_MAGIC,
    check_model_file,
    file_description,
    file_identity,
    open_stream,
)
from wefe_same.models.specs import UnicodeErrors
from wefe_same.validation import check_bool

FASTTEXT_FAILED = "{path}: cannot load the fastText .bin file ({error})"
FASTTEXT_TRUNCATED = "{path}: a fastText .bin file that ends inside its {part}: truncated or damaged"
FASTTEXT_MATRIX = ("{path}: the fastText matrix header declares {rows} x {dim} numbers, {need} bytes, but only "
                   "{left} bytes follow: truncated or damaged")
FASTTEXT_QUANTIZED = "{path}: a quantized fastText model (.ftz) cannot be read; use the .bin model"
FASTTEXT_WORD = "{path}: fastText vocabulary word {index}"


def check_fasttext_bin(path: Path, decode: _Decoder) -> None:
    """Walk a fastText ``.bin`` header and vocabulary before gensim reads it.

    gensim's reader loops forever on a vocabulary cut short (it reads one byte at a time
    until a NUL that never comes) and allocates whatever the matrix header declares; this
    walk stops at the end of the file with a ModelError instead, and checks that the
    declared matrix fits in the bytes left. Words are decoded under ``unicode_errors``
    so that a non-UTF-8 word is an error or a reported warning (gensim then keys it with
    backslash escapes). The layout is fastText's ``FastText::saveModel``, read as gensim's
    ``_fasttext_bin`` does (native byte order and sizes, fields read one by one).
    """
    with open_stream(path) as fh:
        buf, pos = b"", 0

        def take(n: int, part: str) -> bytes:
            nonlocal buf, pos
            if n > 1 << 32:  # a declared size no fastText file has: damaged, and too big to read
                raise ModelError(FASTTEXT_TRUNCATED.format(path=path, part=part))
            while len(buf) - pos < n:
                more = fh.read(max(CHUNK_BYTES, n))
                if not more:
                    raise ModelError(FASTTEXT_TRUNCATED.format(path=path, part=part))
                buf, pos = buf[pos:] + more, 0
            pos += n
            return buf[pos - n:pos]

        magic, _ = struct.unpack("@2i", take(8, "header"))
        new_format = magic == FASTTEXT_MAGIC
        take(12 * 4 + 8 if new_format else 10 * 4 + 8, "header")  # args: ints and the double t
        vocab_size, _, nlabels = struct.unpack("@3i", take(12, "vocabulary header"))
        counts = take(16 if new_format else 8, "vocabulary header")  # ntokens (and pruneidx_size)
        prune = struct.unpack("@q", counts[8:])[0] if new_format else 0
        if nlabels > 0:
            raise ModelError(f"{path}: a supervised fastText model (with labels) has no word vectors to rank")
        entry = struct.calcsize("@qb")
        for index in range(max(vocab_size, 0)):
            end = buf.find(b"\0", pos)
            while end < 0:
                more = fh.read(CHUNK_BYTES)
                if not more:
                    raise ModelError(FASTTEXT_TRUNCATED.format(path=path, part="vocabulary"))
                buf, pos = buf[pos:] + more, 0
                end = buf.find(b"\0")
            word, pos = buf[pos:end], end + 1
            decode(word, index + 1, lambda: FASTTEXT_WORD.format(path=path, index=index + 1))
            take(entry, "vocabulary")
        take(8 * max(prune, 0), "pruned index")
        if new_format and take(1, "matrix header") != b"\0":
            raise ModelError(FASTTEXT_QUANTIZED.format(path=path))
        rows, dim = struct.unpack("@2q", take(16, "matrix header"))
        need = rows * dim * struct.calcsize("@f")
        # A gzip stream's length is unknown without decompressing it; gensim reads it in checked batches.
        left = None if isinstance(fh, gzip.GzipFile) else path.stat().st_size - fh.tell() + len(buf) - pos
        if rows < 0 or dim < 0 or (left is not None and need > left):
            raise ModelError(FASTTEXT_MATRIX.format(path=path, rows=rows, dim=dim, need=need, left=left))


class FastTextBinSource(ModelSource):
    """A Facebook fastText ``.bin`` model, loaded with gensim's ``load_facebook_vectors``.

    Words outside the vocabulary get the vector fastText builds from their character
    n-grams (``subwords=True``), reported by :meth:`lookup_with_status` so that
    lookups.csv marks them ``subword``; with ``subwords=False`` they are missing. The
    model is loaded on the first lookup (the whole file: fastText's n-gram buckets
    cannot be streamed), and not pickled with the source.
    """

    kind = "fasttext-bin"
    has_vocabulary = True

    def __init__(self, name: str, path: str | Path, *, subwords: bool = True,
                 unicode_errors: UnicodeErrors = "strict") -> None:
        self.name = name
        self.path = check_model_file(name, Path(path))
        self.subwords = check_bool(subwords, "subwords", "LoadOptions")
        self.unicode_errors = unicode_errors
        self._decode = _Decoder(unicode_errors, lenient="backslashreplace")
        self._kv: Any = None

    @property
    def decode_warnings(self) -> list[str]:
        """Words that are not UTF-8, as gensim keys them (backslash escapes), when lenient."""
        return list(self._decode.warnings)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_kv": None}

    def _vectors(self) -> Any:
        if self._kv is None:
            from gensim.models.fasttext import load_facebook_vectors

            with self._decode.reporting(self.path):
                check_fasttext_bin(self.path, self._decode)
            try:
                self._kv = load_facebook_vectors(str(self.path))
            except Exception as err:  # a third-party parser of a binary file raises anything: name the file
                raise ModelError(FASTTEXT_FAILED.format(path=self.path, error=f"{type(err).__name__}: {err}")) from None
        return self._kv

    def lookup_with_status(self, words: Collection[str]) -> StatusLookup:
        """(vectors as float64, the words among them built from subwords)."""
        kv = self._vectors()
        found: dict[str, np.ndarray] = {}
        built: set[str] = set()
        with np.errstate(invalid="ignore"):  # a signalling NaN warns when widened; it stays NaN
            for w in set(words):
                if w in kv.key_to_index:
                    found[w] = np.asarray(kv.get_vector(w), dtype=np.float64)
                elif self.subwords and kv.bucket:
                    found[w] = np.asarray(kv.get_vector(w), dtype=np.float64)
                    built.add(w)
        return found, frozenset(built)

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        return self.lookup_with_status(words)[0]

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The first ``limit`` vocabulary words (fastText keeps them by frequency) and their vectors."""
        kv = self._vectors()
        n = len(kv.index_to_key) if limit is None else max(0, min(int(limit), len(kv.index_to_key)))
        return list(kv.index_to_key[:n]), np.array(kv.vectors[:n], dtype=np.float32)

    def identity(self) -> dict[str, Any]:
        return file_identity(self.kind, self.path, subwords=self.subwords, unicode_errors=self.unicode_errors)

    def describe(self) -> dict[str, str]:
        out = {**file_description(self.kind, self.path), "subwords": str(self.subwords).lower()}
        out.update(self._decode.describe())
        return out
