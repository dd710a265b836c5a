"""Model sources: anything that maps words to vectors and says what it could not find.

A source answers one question, :meth:`ModelSource.lookup`, for a batch of words. The
framework asks it once per model per run, for the union of every query word (with
casing variants), so a source never has to hand over a whole embedding matrix.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import ModelError


@runtime_checkable
class ModelSource(Protocol):
    """What the framework needs from an embedding model.

    Optional, beyond the protocol: ``vocabulary(limit)`` (the first words and their
    vectors, for analogy benchmarks), ``identity()`` (a JSON-able dict that identifies
    the model's vectors without reading them, e.g. path, size and mtime of its files, the
    package and version, an encoder's revision and settings: the cache key; a source
    without it is never cached) and ``spec`` (the string it was resolved from, so that
    worker processes can resolve it again).
    """

    name: str

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        """Vectors of those ``words`` the model knows; unknown words are left out."""
        ...

    def describe(self) -> dict[str, str]:
        """Provenance for the manifest (kind, path, package, size)."""
        ...


class ArraySource:
    """An in-memory (or memory-mapped) vocabulary and matrix.

    Parameters
    ----------
    name : str
        Model name used in every table.
    words : sequence of str, length V
    matrix : ndarray, shape (V, d)
    description : dict, optional
        Provenance for the manifest.

    >>> src = ArraySource("toy", ["a", "b"], np.eye(2))
    >>> sorted(src.lookup(["a", "c"]))
    ['a']
    """

    def __init__(
        self,
        name: str,
        words: Sequence[str],
        matrix: np.ndarray,
        description: dict[str, str] | None = None,
    ) -> None:
        if matrix.ndim != 2 or matrix.shape[0] != len(words):
            raise ModelError(
                f"model {name!r}: {len(words)} words but a matrix of shape {matrix.shape}"
            )
        self.name = name
        self._words = words
        self._matrix = matrix
        self._index: dict[str, int] | None = None
        self._description = {"kind": "array", **(description or {})}

    @property
    def dim(self) -> int:
        return int(self._matrix.shape[1])

    def _lazy_index(self) -> dict[str, int]:
        if self._index is None:
            # The first occurrence wins, as in gensim when a vocabulary repeats a word.
            index: dict[str, int] = {}
            for i, w in enumerate(self._words):
                index.setdefault(str(w), i)
            self._index = index
        return self._index

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        index = self._lazy_index()
        hits = sorted((index[w], w) for w in set(words) if w in index)
        rows = np.asarray(self._matrix[[i for i, _ in hits]], dtype=np.float64)
        return {w: rows[k] for k, (_, w) in enumerate(hits)}

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The first ``limit`` words (all when None) and their raw vectors.

        Returns
        -------
        words : list of str, length n = min(limit, V)
        vectors : ndarray of float32, shape (n, d)

        >>> words, vectors = ArraySource("toy", ["a", "b", "c"], np.eye(3)).vocabulary(2)
        >>> words, vectors.dtype, vectors.shape
        (['a', 'b'], dtype('float32'), (2, 3))
        """
        n = len(self._words) if limit is None else max(0, min(int(limit), len(self._words)))
        return [str(w) for w in self._words[:n]], np.array(self._matrix[:n], dtype=np.float32)

    def describe(self) -> dict[str, str]:
        return {**self._description, "vocabulary": str(len(self._words)), "dim": str(self.dim)}


class LazySource:
    """A source built on first use, so listing or validating models reads no file."""

    def __init__(self, name: str, build: Callable[[], ModelSource], description: dict[str, str]):
        self.name = name
        self._build = build
        self._source: ModelSource | None = None
        self._description = description

    def _get(self) -> ModelSource:
        if self._source is None:
            self._source = self._build()
        return self._source

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        return self._get().lookup(words)

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The first ``limit`` words and their raw float32 vectors, from the built source."""
        return source_vocabulary(self._get(), limit, name=self.name)

    def describe(self) -> dict[str, str]:
        inner = self._get().describe() if self._source is not None else {}
        return {**inner, **self._description}


def source_vocabulary(source: object, limit: int | None, *, name: str | None = None) -> tuple[list[str], np.ndarray]:
    """``source.vocabulary(limit)``, or a :class:`ModelError` naming the model when it has none.

    Built-in sources list their first ``limit`` words in file (frequency) order; a user
    object that only implements :meth:`ModelSource.lookup` cannot, and analogy
    benchmarks (which search the whole vocabulary) need it.
    """
    method = getattr(source, "vocabulary", None)
    if not callable(method):
        label = name or getattr(source, "name", type(source).__name__)
        raise ModelError(
            f"model {label!r} ({type(source).__name__}) cannot list its vocabulary: it has no "
            "vocabulary(limit) method returning (words, vectors) in frequency order"
        )
    return method(limit)


def file_description(kind: str, *paths: Path) -> dict[str, str]:
    """Path, size and modification time: cheap provenance without hashing gigabytes."""
    out = {"kind": kind}
    for i, p in enumerate(paths):
        suffix = "" if i == 0 else f"_{i + 1}"
        stat = p.stat()
        out[f"path{suffix}"] = str(p)
        out[f"bytes{suffix}"] = str(stat.st_size)
    return out


class TextVectorsSource:
    """GloVe text (no header), word2vec text and fastText ``.vec`` (header ``V d``).

    Hand-written rather than gensim's ``load_word2vec_format`` because that parses every
    line into one big matrix; here one streaming pass parses only the requested words.
    """

    def __init__(self, name: str, path: str | Path, *, kind: str) -> None:
        self.name = name
        self.path = Path(path)
        self.kind = kind
        if not self.path.is_file():
            raise ModelError(f"model {name!r}: no such file {self.path}")

    def _rows(self, keep: Callable[[str], bool], dtype: type = np.float64) -> Iterator[tuple[str, np.ndarray]]:
        """(word, vector) for the lines whose word ``keep`` accepts, in file order.

        A header line ``V d`` is skipped; a vector that does not parse or has the wrong
        length is an error naming the file and line.
        """
        dim: int | None = None
        with open(self.path, encoding="utf-8", errors="replace") as fh, warnings.catch_warnings():
            # np.fromstring warns (and stops) on text it cannot parse: make that an error here.
            warnings.simplefilter("error", DeprecationWarning)
            for lineno, line in enumerate(fh, start=1):
                if lineno == 1 and _is_header(line):
                    dim = int(line.split()[1])
                    continue
                head, _, rest = line.rstrip("\n").partition(" ")
                if not keep(head):
                    continue
                try:
                    vec = np.fromstring(rest, dtype=dtype, sep=" ")
                except (ValueError, DeprecationWarning):
                    raise ModelError(f"{self.path}:{lineno}: cannot parse the vector of word {head!r}") from None
                dim = vec.size if dim is None else dim
                if vec.size != dim or vec.size == 0:
                    raise ModelError(
                        f"{self.path}:{lineno}: word {head!r} has {vec.size} numbers, expected {dim} numbers"
                    )
                yield head, vec

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        wanted = set(words)
        found: dict[str, np.ndarray] = {}
        for word, vec in self._rows(lambda w: w in wanted and w not in found):
            found[word] = vec
            if len(found) == len(wanted):
                break
        return found

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The first ``limit`` words of the file (all when None), a header line skipped.

        Returns
        -------
        words : list of str, length n
        vectors : ndarray of float32, shape (n, d)
        """
        words: list[str] = []
        rows: list[np.ndarray] = []
        if limit is None or limit > 0:
            # float32 while reading: 300 000 rows of 300 floats would take 720 MB as float64.
            for word, vec in self._rows(lambda w: True, np.float32):
                words.append(word)
                rows.append(vec)
                if limit is not None and len(words) >= limit:
                    break
        return words, (np.vstack(rows) if rows else np.zeros((0, 0), dtype=np.float32))

    def describe(self) -> dict[str, str]:
        return file_description(self.kind, self.path)


def _is_header(line: str) -> bool:
    parts = line.split()
    return len(parts) == 2 and all(p.isdigit() for p in parts)


def sniff_text_header(path: Path) -> bool:
    """Whether a text embedding file starts with a ``V d`` header line."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        return _is_header(fh.readline())


def load_word2vec_binary(name: str, path: Path) -> ArraySource:
    from gensim.models import KeyedVectors

    try:
        kv = KeyedVectors.load_word2vec_format(str(path), binary=True)
    except (OSError, ValueError, EOFError) as err:
        raise ModelError(f"{path}: not a word2vec binary file ({err})") from None
    return ArraySource(name, kv.index_to_key, kv.vectors, file_description("word2vec-binary", path))


def load_npy(name: str, matrix_path: Path, vocab_path: Path) -> ArraySource:
    """A ``.npy`` matrix (memory-mapped) and a vocabulary file, one word per line
    (extra columns, e.g. counts, are ignored) or a parquet file with one column."""
    for p in (matrix_path, vocab_path):
        if not p.is_file():
            raise ModelError(f"model {name!r}: no such file {p}")
    matrix = np.load(matrix_path, mmap_mode="r")
    if vocab_path.suffix == ".parquet":
        import pandas as pd

        frame = pd.read_parquet(vocab_path)
        words = frame.iloc[:, 0].astype(str).tolist()
    else:
        with open(vocab_path, encoding="utf-8") as fh:
            words = [line.rstrip("\n").split(" ")[0] for line in fh]
    if matrix.ndim != 2 or len(words) != matrix.shape[0]:
        raise ModelError(
            f"model {name!r}: {vocab_path} has {len(words)} words but {matrix_path} "
            f"has shape {matrix.shape}"
        )
    return ArraySource(name, words, matrix, file_description("npy", matrix_path, vocab_path))


def load_gensim_pickle(name: str, path: Path, *, trusted: bool) -> ArraySource:
    """gensim ``.kv`` / ``.model`` files are pickles: loading one runs code from the file."""
    if not trusted:
        raise ModelError(
            f"{path}: gensim .kv/.model files are pickles that run code when loaded; "
            "pass --trust-pickle (trust_pickle=True) if you trust this file"
        )
    if not path.is_file():
        raise ModelError(f"model {name!r}: no such file {path}")
    from gensim.models import KeyedVectors
    from gensim.utils import SaveLoad

    try:
        obj = SaveLoad.load(str(path))
    except Exception as err:  # unpickling can raise anything; name the file and go on
        raise ModelError(f"{path}: cannot load gensim file ({type(err).__name__}: {err})") from None
    kv = obj if isinstance(obj, KeyedVectors) else getattr(obj, "wv", None)
    if not isinstance(kv, KeyedVectors):
        raise ModelError(f"{path}: holds a {type(obj).__name__}, not gensim KeyedVectors")
    return ArraySource(name, kv.index_to_key, kv.vectors, file_description("gensim", path))
