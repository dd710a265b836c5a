"""word2vec's binary format (the C tool's and gensim's), plain or gzip, streamed."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from pathlib import Path

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.readers.files import CHUNK_BYTES, MAX_LINE_BYTES, MAX_WORD_BYTES, NO_VECTORS, _check_dim, _header
from wefe_same.models.readers.streamed import StreamedFileSource
from wefe_same.models.specs import UnicodeErrors

BAD_HEADER = "{path}: the first line should be 'VOCABULARY_SIZE DIMENSION' of a word2vec binary file, got {line!r}"
NO_SPACE = ("{path}: record {record} at byte {offset}: no space after the word within {limit} bytes: "
            "damaged, or not a word2vec binary file")
TRUNCATED = ("{path}: ends inside record {record} at byte {offset}; the header declares {count} vectors "
             "of {dim} numbers: truncated, or not a word2vec binary file")


class Word2VecBinarySource(StreamedFileSource):
    """word2vec's binary format (the C tool's and gensim's), plain or gzip, streamed.

    The file is a header line ``V d`` and V records ``WORD<space><d little-endian
    float32>``, optionally with a newline after each vector (word2vec.c writes one,
    gensim does not; gensim strips it from the next word, and so does this reader).
    """

    kind = "word2vec-binary"

    def _records(self, keep: Callable[[str], bool]) -> Iterator[tuple[str, bytes, int]]:
        """(word, its d*4 vector bytes, d) for the records whose word ``keep`` accepts.

        Streaming by hand (gensim reads every record into one matrix): a 1 MiB buffer
        is scanned for the space after each word; the vector bytes of records not kept
        are skipped without being converted.
        """
        path = self.path
        with self._open() as fh:
            first = fh.readline(MAX_LINE_BYTES)
            header = _header(first)
            if header is None:
                raise ModelError(BAD_HEADER.format(path=path, line=first[:80]))
            count, dim = header[0], _check_dim(path, header[1])
            if count == 0:
                raise ModelError(NO_VECTORS.format(path=path, why="the header declares 0 vectors"))
            width = 4 * dim
            prefixed = bool(self.key_prefix)
            buf, pos, base = b"", 0, len(first)  # base: file offset of buf[0]
            for record in range(1, count + 1):
                space = buf.find(b" ", pos, pos + MAX_WORD_BYTES + 1)
                while space < 0:
                    if len(buf) - pos > MAX_WORD_BYTES:
                        raise ModelError(NO_SPACE.format(path=path, record=record, offset=base + pos,
                                                         limit=MAX_WORD_BYTES))
                    more = fh.read(CHUNK_BYTES)
                    if not more:
                        if record == 1 and not buf[pos:].strip():
                            raise ModelError(NO_VECTORS.format(path=path, why="a header line and nothing else"))
                        raise ModelError(TRUNCATED.format(path=path, record=record, offset=base + pos,
                                                          count=count, dim=dim))
                    buf, base, pos = buf[pos:] + more, base + pos, 0
                    space = buf.find(b" ", 0, MAX_WORD_BYTES + 1)
                end = space + 1 + width
                while len(buf) < end:
                    more = fh.read(max(CHUNK_BYTES, end - len(buf)))
                    if not more:
                        raise ModelError(TRUNCATED.format(path=path, record=record, offset=base + pos,
                                                          count=count, dim=dim))
                    buf, base, space, end, pos = buf[pos:] + more, base + pos, space - pos, end - pos, 0
                raw = buf[pos:space]
                try:  # the decoder's own first step, without a call and a closure per record
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    start = base + pos
                    text = self._decode(raw, record, lambda: f"{path}: record {record} at byte {start}")
                word = self._key(text.lstrip("\n")) if prefixed else text.lstrip("\n")
                if word is not None and keep(word):
                    yield word, buf[space + 1:end], dim
                pos = end

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        """Vectors (float64) of the ``words`` in the file, in one pass that stops when all
        are found; a word that appears twice keeps its first vector, as in gensim.

        The vector bytes of the words found are converted in one call, into the rows of
        one matrix (the values of the per-record conversion, which cost a NumPy call per
        word: thousands per model)."""
        wanted = set(words)
        found: dict[str, bytes] = {}
        dim = 0
        if wanted:
            with self._decode.reporting(self.path):
                for word, data, dim in self._records(lambda w: w in wanted and w not in found):  # noqa: B007 (read after)
                    found[word] = data
                    if len(found) == len(wanted):
                        break
        if not found:
            return {}
        with np.errstate(invalid="ignore"):  # a signalling NaN warns when widened; it stays NaN
            matrix = np.frombuffer(b"".join(found.values()), dtype="<f4").reshape(len(found), dim).astype(np.float64)
        return dict(zip(found, matrix))

    def _rows(self, keep: Callable[[str], bool], dtype: type = np.float64) -> Iterator[tuple[str, np.ndarray]]:
        for word, data, _ in self._records(keep):
            with np.errstate(invalid="ignore"):  # a signalling NaN warns when widened; it stays NaN
                vec: np.ndarray = np.frombuffer(data, dtype="<f4").astype(dtype)
            yield word, vec

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The first ``limit`` records (all when None) as words and a float32 matrix.

        The vector bytes are gathered in one buffer and viewed as the matrix: one copy of
        the data at most, not a list of row arrays and then a stacked copy.
        """
        words: list[str] = []
        data = bytearray()
        dim = 0
        if limit is None or limit > 0:
            with self._decode.reporting(self.path):
                for word, chunk, dim in self._records(lambda w: True):  # noqa: B007 (dim is read after the loop)
                    words.append(word)
                    data += chunk
                    if limit is not None and len(words) >= limit:
                        break
        if not words:
            return words, np.zeros((0, 0), dtype=np.float32)
        return words, np.frombuffer(data, dtype="<f4").reshape(len(words), dim).astype(np.float32, copy=False)


def load_word2vec_binary(name: str, path: Path, *, unicode_errors: UnicodeErrors = "strict") -> Word2VecBinarySource:
    """A word2vec binary file (plain or gzip) as a streamed source."""
    return Word2VecBinarySource(name, path, unicode_errors=unicode_errors)
