"""Embedding files as they come: text (GloVe, word2vec, fastText ``.vec``), word2vec
binary, either one gzip-compressed, fastText ``.bin``, ``.npy`` + vocabulary, gensim pickles.

Text and word2vec binary files are *streamed*: one pass over the (decompressed) bytes
keeps only the requested rows and stops when every one is found, so memory stays bounded
whatever the file size. That is why these two readers are written here rather than
calling gensim's ``load_word2vec_format``, which builds the whole matrix; their output
is checked against gensim's in the tests.

Resolving a spec opens no file: paths are checked with ``os.stat`` (:func:`check_model_file`)
and formats guessed from names; :class:`VectorsFileSource` sniffs the content (text or
binary, header or not, fastText) when the vectors are first asked for.

Every problem with a file is a :class:`~wefe_same.errors.ModelError` with one line naming
the file (and the line or record): no other exception escapes a reader. The message
templates are module constants that the tests match. A word decoded leniently
(``LoadOptions.unicode_errors``) is reported: one :class:`~wefe_same.errors.WefeSameWarning`
per pass and the list in the source's ``decode_warnings`` and ``describe()``.

>>> import tempfile, os
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "m.txt")
...     with open(path, "w") as fh:
...         _ = fh.write("2 3\\nhe 1 0 0\\nshe 0 1 0\\n")
...     source = TextVectorsSource("m", path, kind="word2vec")
...     source.lookup(["she", "it"])["she"].tolist()
[0.0, 1.0, 0.0]
"""

from __future__ import annotations

import contextlib
import gzip
import json
import struct
import warnings
import zlib
from collections.abc import Callable, Collection, Iterator
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO, Literal

import numpy as np

from wefe_same.errors import ModelError, WefeSameWarning
from wefe_same.interrupts import signals_deferred
from wefe_same.validation import check_bool, check_choice
from wefe_same.models.options import LoadOptions, UnicodeErrors
from wefe_same.models.sources import ArraySource, LazySource, StatusLookup, file_description, file_identity, lookup_with_status

# ----------------------------------------------------------------------------- messages
NO_SUCH_FILE = "model {name!r}: no such file {path}"
IS_A_DIRECTORY = "model {name!r}: {path} is a directory, not a model file; give the file inside it"
NOT_A_FILE = "model {name!r}: {path} is not a regular file (a device, socket or pipe)"
NO_VECTORS = "{path}: no vectors ({why})"
CANNOT_READ = "{path}: cannot read the file: {error} (damaged or truncated?)"
NOT_UTF8 = ("{where}: word {raw!r} is not valid UTF-8; decode it leniently with --unicode-errors "
            "replace or ignore (LoadOptions(unicode_errors=...))")
DECODED = "{where}: {raw!r} decoded as {word}"
DECODED_SUMMARY = ("{path}: {n} word(s) not valid UTF-8 decoded leniently (unicode_errors={mode!r}): {examples}")
BAD_VECTOR = "{path}:{line}: cannot parse the vector of word {word!r}"
WRONG_LENGTH = "{path}:{line}: word {word!r} has {n} numbers, expected {dim} numbers"
LINE_TOO_LONG = "{path}:{line}: line longer than {limit} bytes: not a text embedding file"
BAD_HEADER = "{path}: the first line should be 'VOCABULARY_SIZE DIMENSION' of a word2vec binary file, got {line!r}"
BAD_DIMENSION = "{path}: the header declares {dim} dimensions; expected 1 to {limit}"
NO_SPACE = ("{path}: record {record} at byte {offset}: no space after the word within {limit} bytes: "
            "damaged, or not a word2vec binary file")
TRUNCATED = ("{path}: ends inside record {record} at byte {offset}; the header declares {count} vectors "
             "of {dim} numbers: truncated, or not a word2vec binary file")
NPY_OBJECTS = ("{path}: the array holds Python objects (dtype {dtype}); loading it would need pickle, "
               "which runs code from the file: refused")
NPY_NOT_NUMBERS = "{path}: the array has dtype {dtype}, not numbers"
FASTTEXT_FAILED = "{path}: cannot load the fastText .bin file ({error})"

#: Gzip files start with these two bytes; the content, not the name, decides.
GZIP_MAGIC = b"\x1f\x8b"
#: A Facebook fastText ``.bin`` starts with this little-endian int32.
FASTTEXT_MAGIC = 793712314
#: Above this a header is hostile or garbage, not an embedding (largest in use: ~4096).
MAX_DIM = 100_000
#: The word of a binary record ends with a space within this many bytes (word2vec.c: 100).
MAX_WORD_BYTES = 10_000
#: A text line longer than this is not an embedding row (300 numbers take ~3 kB).
MAX_LINE_BYTES = 16 << 20
#: Bytes read at a time from a binary file: bounded memory whatever the file size.
CHUNK_BYTES = 1 << 20
#: At most this many decode warnings are kept as text; all are counted.
MAX_DECODE_WARNINGS = 100

#: Bytes a text vector is made of: sniffing tells a text file from a binary one by them.
_TEXT_NUMBER_BYTES = frozenset(b"0123456789+-.eE naNiIfFtTyY\t\r\n")

FileKind = Literal["text", "binary", "fasttext-bin"]
UNICODE_ERRORS = ("strict", "replace", "ignore")


# ----------------------------------------------------------------------------- files
def check_model_file(name: str, path: Path) -> Path:
    """``path`` when it is a file; a :class:`ModelError` naming it otherwise (at resolve time).

    An empty file has no vectors; that is known from ``os.stat`` without opening it.
    """
    if path.is_dir():
        raise ModelError(IS_A_DIRECTORY.format(name=name, path=path))
    if not path.is_file():
        raise ModelError((NOT_A_FILE if path.exists() else NO_SUCH_FILE).format(name=name, path=path))
    if path.stat().st_size == 0:
        raise ModelError(NO_VECTORS.format(path=path, why="the file is empty"))
    return path


def strip_gz(path: Path) -> Path:
    """``m.txt.gz`` → ``m.txt``: the name whose suffix tells the format.

    >>> strip_gz(Path("d/m.txt.gz")), strip_gz(Path("m.bin"))
    (PosixPath('d/m.txt'), PosixPath('m.bin'))
    """
    return path.with_suffix("") if path.suffix.lower() == ".gz" else path


def is_gzip(path: Path) -> bool:
    """Whether the file starts with the gzip magic bytes."""
    with _errors_name(path), open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


@contextlib.contextmanager
def _errors_name(path: Path) -> Iterator[None]:
    """Turn what reading a damaged file raises into a ModelError naming it.

    Gzip raises BadGzipFile (an OSError), EOFError on a truncated stream and zlib.error
    on corrupt data; reading raises OSError. Our own parse errors are ModelErrors already.
    """
    try:
        yield
    except (OSError, EOFError, zlib.error, struct.error) as err:
        raise ModelError(CANNOT_READ.format(path=path, error=f"{type(err).__name__}: {err}")) from None


@contextlib.contextmanager
def open_stream(path: Path) -> Iterator[BinaryIO]:
    """The file's bytes, decompressed on the fly when it is gzip (never to disk or whole).

    Read errors inside the ``with`` block become a :class:`ModelError` naming the file.
    """
    with _errors_name(path), open(path, "rb") as raw:
        if raw.read(2) == GZIP_MAGIC:
            raw.seek(0)
            with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:
                yield unzipped  # type: ignore[misc]
        else:
            raw.seek(0)
            yield raw


def _lines(path: Path, fh: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """(line number, line without its end of line), each line at most MAX_LINE_BYTES long."""
    lineno = 0
    while True:
        line = fh.readline(MAX_LINE_BYTES)
        if not line:
            return
        lineno += 1
        if len(line) >= MAX_LINE_BYTES and not line.endswith(b"\n"):
            raise ModelError(LINE_TOO_LONG.format(path=path, line=lineno, limit=MAX_LINE_BYTES))
        yield lineno, line.rstrip(b"\r\n")


def _header(line: bytes) -> tuple[int, int] | None:
    """``(V, d)`` when ``line`` is a word2vec/fastText header ``V d``.

    >>> _header(b"400000 300"), _header(b"the 0.1 0.2"), _header(b"1 2 3")
    ((400000, 300), None, None)
    """
    parts = line.split()
    # At most 18 digits: int() of a longer hostile string is slow or refused.
    if len(parts) == 2 and all(p.isdigit() and len(p) <= 18 for p in parts):
        return int(parts[0]), int(parts[1])
    return None


def _check_dim(path: Path, dim: int) -> int:
    if not 1 <= dim <= MAX_DIM:
        raise ModelError(BAD_DIMENSION.format(path=path, dim=dim, limit=MAX_DIM))
    return dim


def sniff_format(path: Path) -> tuple[FileKind, bool]:
    """What a (possibly gzip) embedding file holds, from its first bytes, and whether its
    first line is a ``V d`` header (word2vec text, not GloVe), in one read.

    "fasttext-bin" when it starts with fastText's magic number; "binary" when a
    ``V d`` header is followed by a word and raw float32 bytes; otherwise "text". An
    empty or header-only file is a :class:`ModelError` "no vectors" naming it. Called
    when a file is first read, never when a spec is resolved.
    """
    with open_stream(path) as fh:
        head = fh.read(4)
        if len(head) == 4 and struct.unpack("<i", head)[0] == FASTTEXT_MAGIC:
            return "fasttext-bin", False
        newline = head.find(b"\n")
        if newline >= 0:  # a first line shorter than 4 bytes
            first, rest = head[:newline + 1], head[newline + 1:]
        else:
            first, rest = head + fh.readline(MAX_LINE_BYTES), b""
        if not first.strip() and not (rest + fh.read(1 << 16)).strip():
            raise ModelError(NO_VECTORS.format(path=path, why="the file is empty"))
        header = _header(first)
        if header is None:
            return "text", False
        sample = rest + fh.read(MAX_WORD_BYTES + 64)
    if not sample.strip():
        raise ModelError(NO_VECTORS.format(path=path, why="a header line and nothing else"))
    space = sample.find(b" ")
    after = sample[space + 1: space + 1 + min(64, 4 * max(header[1], 1))] if space >= 0 else b""
    return ("text" if all(b in _TEXT_NUMBER_BYTES for b in after) else "binary"), True


def sniff_text_header(path: Path) -> bool:
    """Whether a (possibly gzip) text embedding file starts with a ``V d`` header line."""
    with open_stream(path) as fh:
        return _header(fh.readline(MAX_LINE_BYTES)) is not None


# ----------------------------------------------------------------------------- decoding
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
            examples = [w[len(str(path)):].lstrip(":").strip() if w.startswith(str(path)) else w
                        for w in self.warnings[shown:shown + 3]]
            examples = "; ".join(f"line {e}" if e[:1].isdigit() else e for e in examples) or "see the manifest"
            warnings.warn(DECODED_SUMMARY.format(n=self.count - before, path=path, mode=self.unicode_errors,
                                                 examples=examples), WefeSameWarning, stacklevel=4)


class _FileSource:
    """What the streamed file sources share: path, options, identity, provenance."""

    kind: str

    def __init__(self, name: str, path: str | Path, *, unicode_errors: UnicodeErrors = "strict",
                 key_prefix: str = "") -> None:
        self.name = name
        self.path = check_model_file(name, Path(path))
        self.unicode_errors = unicode_errors
        self.key_prefix = key_prefix
        self._decode = _Decoder(unicode_errors)

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
        """The cache key: kind, absolute path, size and mtime_ns, and the reading options."""
        return file_identity(self.kind, self.path, unicode_errors=self.unicode_errors,
                             key_prefix=self.key_prefix)

    def describe(self) -> dict[str, str]:
        out = file_description(self.kind, self.path)
        with contextlib.suppress(ModelError):
            if is_gzip(self.path):
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


class TextVectorsSource(_FileSource):
    """GloVe text (no header), word2vec text and fastText ``.vec`` (header ``V d``), plain or gzip.

    Parameters
    ----------
    name : str
    path : path
    kind : str
        Label in the manifest: "glove", "word2vec", "fasttext".
    unicode_errors : {"strict", "replace", "ignore"}
        How a word that is not UTF-8 is decoded; "strict" makes it an error naming the
        file and line.
    key_prefix : str
        Only keys starting with it are visible, without it (ConceptNet Numberbatch's
        ``/c/en/``).
    """

    def __init__(self, name: str, path: str | Path, *, kind: str, unicode_errors: UnicodeErrors = "strict",
                 key_prefix: str = "") -> None:
        super().__init__(name, path, unicode_errors=unicode_errors, key_prefix=key_prefix)
        self.kind = kind

    def _rows(self, keep: Callable[[str], bool], dtype: type = np.float64) -> Iterator[tuple[str, np.ndarray]]:
        """(word, vector) for the lines whose word ``keep`` accepts, in file order.

        A header line ``V d`` is skipped and blank lines are ignored; a vector that does
        not parse or has the wrong length is an error naming the file, line and word.
        Only accepted lines are parsed past their first word (that is the speed).
        """
        path = self.path
        dim: int | None = None
        n_vectors = 0
        with open_stream(path) as fh:
            for lineno, line in _lines(path, fh):
                if lineno == 1 and (header := _header(line)) is not None:
                    dim = _check_dim(path, header[1])
                    continue
                if not line.strip():
                    continue
                n_vectors += 1
                raw, _, rest = line.partition(b" ")
                word = self._key(self._decode(raw, lineno, lambda: f"{path}:{lineno}"))
                wanted = word is not None and keep(word)
                # Without a header the first vector line sets the dimension, wanted or not.
                if not wanted and dim is not None:
                    continue
                label = word if word is not None else raw
                try:
                    vec = np.array(rest.split(), dtype=dtype)
                except ValueError:
                    raise ModelError(BAD_VECTOR.format(path=path, line=lineno, word=label)) from None
                if vec.size == 0 or vec.size != (dim or vec.size):
                    raise ModelError(WRONG_LENGTH.format(path=path, line=lineno, word=label, n=vec.size,
                                                         dim=dim or "more than 0"))
                dim = vec.size
                if wanted:
                    yield word, vec  # type: ignore[misc]
        if n_vectors == 0:
            raise ModelError(NO_VECTORS.format(path=path, why="no line after the header" if dim else
                                               "no vector line"))


class Word2VecBinarySource(_FileSource):
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
        with open_stream(path) as fh:
            first = fh.readline(MAX_LINE_BYTES)
            header = _header(first)
            if header is None:
                raise ModelError(BAD_HEADER.format(path=path, line=first[:80]))
            count, dim = header[0], _check_dim(path, header[1])
            if count == 0:
                raise ModelError(NO_VECTORS.format(path=path, why="the header declares 0 vectors"))
            width = 4 * dim
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
                start = base + pos
                word = self._key(self._decode(buf[pos:space], record,
                                              lambda: f"{path}: record {record} at byte {start}").lstrip("\n"))
                if word is not None and keep(word):
                    yield word, buf[space + 1:end], dim
                pos = end

    def _rows(self, keep: Callable[[str], bool], dtype: type = np.float64) -> Iterator[tuple[str, np.ndarray]]:
        for word, data, _ in self._records(keep):
            with np.errstate(invalid="ignore"):  # a signalling NaN warns when widened; it stays NaN
                vec = np.frombuffer(data, dtype="<f4").astype(dtype)
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
                for word, chunk, dim in self._records(lambda w: True):
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


# ----------------------------------------------------------------------------- fastText .bin
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


class FastTextBinSource:
    """A Facebook fastText ``.bin`` model, loaded with gensim's ``load_facebook_vectors``.

    Words outside the vocabulary get the vector fastText builds from their character
    n-grams (``subwords=True``), reported by :meth:`lookup_with_status` so that
    lookups.csv marks them ``subword``; with ``subwords=False`` they are missing. The
    model is loaded on the first lookup (the whole file: fastText's n-gram buckets
    cannot be streamed), and not pickled with the source.
    """

    kind = "fasttext-bin"

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


# ----------------------------------------------------------------------------- dispatch
#: Format labels a user gives (``FORMAT:PATH``) or a file name implies; "text" is a ``.txt``
#: or bare ``.gz`` whose header (or its absence) says word2vec or GloVe when it is read.
Label = Literal["word2vec", "glove", "fasttext", "text"]


class VectorsFileSource:
    """A text, word2vec binary or fastText ``.bin`` file (plain or gzip), opened on first use.

    Resolving a spec only checks the path (``os.stat``): the file's content decides the
    reader (:func:`sniff_format`) when the vectors are first asked for, so listing,
    validating and cache lookups never open a model file. :meth:`identity` is known
    without reading and is the same before and after.

    Parameters
    ----------
    name : str
    path : path
    label : {"word2vec", "glove", "fasttext", "text"}
        The format the user named or the file name implies; the ``kind`` of a text file
        in the manifest ("text": "word2vec" when it has a ``V d`` header, else "glove").
    options : LoadOptions
        ``unicode_errors`` for every reader, ``subwords`` for a fastText ``.bin``.
    key_prefix : str
        Only keys starting with it are visible, without it (text and binary files).
    """

    def __init__(self, name: str, path: str | Path, *, label: Label, options: LoadOptions,
                 key_prefix: str = "") -> None:
        self.name = name
        self.path = check_model_file(name, Path(path))
        self.label = label
        self.unicode_errors = check_choice(options.unicode_errors, "unicode_errors", "LoadOptions", UNICODE_ERRORS)
        self.subwords = check_bool(options.subwords, "subwords", "LoadOptions")
        self.key_prefix = key_prefix
        self._reader: Any = None

    def _get(self) -> Any:
        """The reader the file's first bytes call for, made once."""
        if self._reader is None:
            kind, has_header = sniff_format(self.path)
            if kind == "fasttext-bin":
                self._reader = FastTextBinSource(self.name, self.path, subwords=self.subwords,
                                                 unicode_errors=self.unicode_errors)
            elif kind == "binary":
                self._reader = Word2VecBinarySource(self.name, self.path, unicode_errors=self.unicode_errors,
                                                    key_prefix=self.key_prefix)
            else:
                label = self.label
                if label == "text":
                    label = "word2vec" if has_header else "glove"
                self._reader = TextVectorsSource(self.name, self.path, kind=label,
                                                 unicode_errors=self.unicode_errors, key_prefix=self.key_prefix)
        return self._reader

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        return self._get().lookup(words)

    def lookup_with_status(self, words: Collection[str]) -> StatusLookup:
        """(vectors, words built from subwords): the latter only for a fastText ``.bin``."""
        return lookup_with_status(self._get(), words)

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The file's first ``limit`` words and their float32 vectors (see the readers)."""
        return self._get().vocabulary(limit)

    @property
    def decode_warnings(self) -> list[str]:
        """The reader's lenient decodings (none before the file is read)."""
        return list(getattr(self._reader, "decode_warnings", []))

    def identity(self) -> dict[str, Any]:
        """The cache key, from ``os.stat`` only: format label, path, size, mtime_ns and the
        options that change what is read (the content decides the reader, so the same
        stats and options always give the same vectors)."""
        return file_identity(self.label, self.path, unicode_errors=self.unicode_errors,
                             key_prefix=self.key_prefix, subwords=self.subwords)

    def describe(self) -> dict[str, str]:
        """The reader's provenance (the file is sniffed if it was not read yet)."""
        return self._get().describe()

    def __repr__(self) -> str:
        return f"VectorsFileSource({self.name!r}, {str(self.path)!r}, label={self.label!r})"


def open_vectors_file(name: str, path: Path, *, label: Label, options: LoadOptions,
                      key_prefix: str = "") -> VectorsFileSource:
    """The source of a text, binary or fastText file; checks the path (``os.stat``) and
    opens nothing: the content chooses the reader on first use."""
    return VectorsFileSource(name, path, label=label, options=options, key_prefix=key_prefix)


# ----------------------------------------------------------------------------- .npy, pickles
def _npy_header(path: Path) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype from a ``.npy`` header, reading nothing else."""
    fmt = np.lib.format
    # numpy evaluates the header as a Python literal: a damaged one can warn (invalid escapes).
    with _errors_name(path), open(path, "rb") as fh, warnings.catch_warnings():
        warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
        try:
            version = fmt.read_magic(fh)
            read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
            shape, _, dtype = read(fh)
        except Exception as err:  # numpy's header parser raises ValueError, SyntaxError, TokenError...
            raise ModelError(f"{path}: not a .npy file ({type(err).__name__}: {err})") from None
    return shape, dtype


def _read_vocabulary(path: Path, decode: _Decoder) -> list[str]:
    """One word per line (extra columns, e.g. counts, ignored) or a one-column parquet file."""
    if path.suffix == ".parquet":
        import pandas as pd

        try:
            frame = pd.read_parquet(path)
        except Exception as err:  # pyarrow raises its own exception types: name the file
            raise ModelError(f"{path}: cannot read the parquet vocabulary ({type(err).__name__}: {err})") from None
        return frame.iloc[:, 0].astype(str).tolist()
    with open_stream(path) as fh:
        return [decode(line.split(b" ")[0], n, lambda: f"{path}:{n}") for n, line in _lines(path, fh)]


def load_npy(name: str, matrix_path: Path, vocab_path: Path, *,
             unicode_errors: UnicodeErrors = "strict") -> ArraySource:
    """A ``.npy`` matrix (memory-mapped) and a vocabulary file, one word per line
    (extra columns, e.g. counts, are ignored) or a parquet file with one column.

    An array of Python objects is refused: loading it would unpickle, which runs code.
    """
    for p in (matrix_path, vocab_path):
        check_model_file(name, p)
    _, dtype = _npy_header(matrix_path)
    if dtype.hasobject:
        raise ModelError(NPY_OBJECTS.format(path=matrix_path, dtype=dtype))
    if dtype.kind not in "fiu":
        raise ModelError(NPY_NOT_NUMBERS.format(path=matrix_path, dtype=dtype))
    with _errors_name(matrix_path), warnings.catch_warnings():
        warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
        try:
            matrix = np.load(matrix_path, mmap_mode="r", allow_pickle=False)
        except ValueError as err:
            raise ModelError(f"{matrix_path}: cannot load the array ({err})") from None
    decode = _Decoder(unicode_errors)
    with decode.reporting(vocab_path):
        words = _read_vocabulary(vocab_path, decode)
    if matrix.ndim != 2 or len(words) != matrix.shape[0]:
        raise ModelError(
            f"model {name!r}: {vocab_path} has {len(words)} words but {matrix_path} "
            f"has shape {matrix.shape}"
        )
    source = ArraySource(name, words, matrix, file_description("npy", matrix_path, vocab_path),
                         identity=file_identity("npy", matrix_path, vocab_path, unicode_errors=unicode_errors))
    source.decode_warnings = decode.warnings
    return source


def load_gensim_pickle(name: str, path: Path, *, trusted: bool) -> ArraySource:
    """gensim ``.kv`` / ``.model`` files are pickles: loading one runs code from the file."""
    if not trusted:
        raise ModelError(
            f"{path}: gensim .kv/.model files are pickles that run code when loaded; "
            "pass --trust-pickle (trust_pickle=True) if you trust this file"
        )
    check_model_file(name, path)
    from gensim.models import KeyedVectors
    from gensim.utils import SaveLoad

    try:
        with signals_deferred():  # numpy.str_ scalars in old pickles would swallow a Ctrl-C
            obj = SaveLoad.load(str(path))
    except Exception as err:  # unpickling can raise anything; name the file and go on
        raise ModelError(f"{path}: cannot load gensim file ({type(err).__name__}: {err})") from None
    kv = obj if isinstance(obj, KeyedVectors) else getattr(obj, "wv", None)
    if not isinstance(kv, KeyedVectors):
        raise ModelError(f"{path}: holds a {type(obj).__name__}, not gensim KeyedVectors")
    return ArraySource(name, kv.index_to_key, kv.vectors, file_description("gensim", path),
                       identity=file_identity("gensim", path))


def lazy_npy(name: str, matrix_path: Path, vocab_path: Path, options: LoadOptions) -> LazySource:
    """``npy:EMB.npy,VOCAB``: the paths checked now (``os.stat``), the files read on first use
    (an array of Python objects is refused then, before any of its data is loaded)."""
    for p in (matrix_path, vocab_path):
        check_model_file(name, p)
    unicode_errors = options.unicode_errors
    # partial, not a lambda: the source pickles (worker processes).
    return LazySource(name, partial(load_npy, name, matrix_path, vocab_path, unicode_errors=unicode_errors),
                      {"kind": "npy", "path": str(matrix_path)},
                      identity=file_identity("npy", matrix_path, vocab_path, unicode_errors=unicode_errors))


def lazy_gensim_pickle(name: str, path: Path, options: LoadOptions) -> LazySource:
    """``gensim:PATH``: refused now unless trusted; loaded on first use."""
    check_model_file(name, path)
    if not options.trust_pickle:  # fail now, before any model is read
        load_gensim_pickle(name, path, trusted=False)
    return LazySource(name, partial(load_gensim_pickle, name, path, trusted=True),
                      {"kind": "gensim", "path": str(path)}, identity=file_identity("gensim", path))
