"""A text, word2vec binary or fastText ``.bin`` file whose content, sniffed on first use,
chooses the reader: resolving a spec opens no file."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any, Literal

import numpy as np

from wefe_same.models.base import ModelSource, StatusLookup
from wefe_same.models.readers.decoding import UNICODE_ERRORS
from wefe_same.models.readers.fasttext_bin import FastTextBinSource
from wefe_same.models.readers.files import check_model_file, file_description, file_identity, sniff
from wefe_same.models.readers.streamed import StreamedFileSource
from wefe_same.models.readers.text import TextVectorsSource
from wefe_same.models.readers.word2vec_binary import Word2VecBinarySource
from wefe_same.models.specs import LoadOptions
from wefe_same.validation import check_bool, check_choice

#: Format labels a user gives (``FORMAT:PATH``) or a file name implies; "text" is a ``.txt``
#: or bare ``.gz`` whose header (or its absence) says word2vec or GloVe when it is read.
Label = Literal["word2vec", "glove", "fasttext", "text"]


class VectorsFileSource(ModelSource):
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

    has_vocabulary = True

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
            kind, has_header, compressed = sniff(self.path)
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
            if isinstance(self._reader, StreamedFileSource):
                self._reader.gzip = compressed
        return self._reader

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        return self._get().lookup(words)

    def lookup_with_status(self, words: Collection[str]) -> StatusLookup:
        """(vectors, words built from subwords): the latter only for a fastText ``.bin``."""
        return self._get().lookup_with_status(words)

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The file's first ``limit`` words and their float32 vectors (see the readers)."""
        return self._get().vocabulary(limit)

    @property
    def decode_warnings(self) -> list[str]:
        """The reader's lenient decodings (none before the file is read)."""
        return list(self._reader.decode_warnings) if self._reader is not None else []

    def identity(self) -> dict[str, Any]:
        """The cache key (:func:`file_identity`: stats and a content hash), format label and the
        options that change what is read (the content decides the reader, so the same
        stats and options always give the same vectors)."""
        return file_identity(self.label, self.path, unicode_errors=self.unicode_errors,
                             key_prefix=self.key_prefix, subwords=self.subwords)

    def describe(self) -> dict[str, str]:
        """The reader's provenance once the file was read; before, what is known without
        opening it: the format label, path, size and (from the name) compression."""
        if self._reader is not None:
            return self._reader.describe()
        out = file_description(self.label, self.path)
        if self.path.suffix.lower() == ".gz":
            out["compression"] = "gzip"
        if self.key_prefix:
            out["key_prefix"] = self.key_prefix
        return out

    def __repr__(self) -> str:
        return f"VectorsFileSource({self.name!r}, {str(self.path)!r}, label={self.label!r})"


def open_vectors_file(name: str, path: Path, *, label: Label, options: LoadOptions,
                      key_prefix: str = "") -> VectorsFileSource:
    """The source of a text, binary or fastText file; checks the path (``os.stat``) and
    opens nothing: the content chooses the reader on first use."""
    return VectorsFileSource(name, path, label=label, options=options, key_prefix=key_prefix)
