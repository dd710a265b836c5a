"""Text embedding files: GloVe (no header), word2vec text and fastText ``.vec`` (header
``V d``), plain or gzip, streamed.

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

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.readers.files import NO_VECTORS, _check_dim, _header, _lines
from wefe_same.models.readers.streamed import StreamedFileSource
from wefe_same.models.specs import UnicodeErrors

BAD_VECTOR = "{path}:{line}: cannot parse the vector of word {word!r}"
WRONG_LENGTH = "{path}:{line}: word {word!r} has {n} numbers, expected {dim} numbers"


class TextVectorsSource(StreamedFileSource):
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
        with self._open() as fh:
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
                    vec: np.ndarray = np.array(rest.split(), dtype=dtype)
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
