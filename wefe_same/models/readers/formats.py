"""The file formats: one frozen :class:`FileFormat` each, built in or from a plugin.

A format is what ``FORMAT:PATH`` names, and the file extensions that make a bare path that
format. Resolving a spec reads the format's spec: which opener builds the source (checking
the path with ``os.stat`` and opening nothing else: the vectors are read on the first
lookup), which extensions it claims, its line in ``wefe-same models``.

The built-in formats (word2vec, glove, fasttext, gensim, npy, and the ``.txt`` files whose
content decides between word2vec text and GloVe) are declared here; an installed package
declares its own in the entry-point group ``wefe_same.formats``, named after the format::

    [project.entry-points."wefe_same.formats"]
    toyvec = "my_package.toy_format:FORMAT"
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource
from wefe_same.models.readers.gensim_pickle import lazy_gensim_pickle
from wefe_same.models.readers.npy import lazy_npy
from wefe_same.models.readers.vectors_file import open_vectors_file
from wefe_same.models.specs import EXTENSIONS, FORMATS, LoadOptions, strip_gz
from wefe_same.plugins import load_entry_points

__all__ = ["BUILTIN_FORMATS", "ENTRY_POINT_GROUP", "FileFormat", "file_format", "file_formats", "guess_format"]

#: The entry-point group installed packages declare file formats in.
ENTRY_POINT_GROUP = "wefe_same.formats"
#: What a format's name may be (the scheme of ``FORMAT:PATH``: two characters at least, ``C:`` is a drive).
NAME = re.compile(r"[A-Za-z][\w-]+")


@dataclass(frozen=True)
class FileFormat:
    """One file format.

    Attributes
    ----------
    name : str
        The ``FORMAT`` of ``FORMAT:PATH``.
    open : callable (model name, location, load options) -> ModelSource
        The source of ``location`` (the text after ``FORMAT:``): the path checked with
        ``os.stat`` (:func:`~wefe_same.models.readers.files.check_model_file`), nothing
        read until the first lookup; a :class:`~wefe_same.errors.ModelError` naming the
        file for anything wrong.
    extensions : tuple of str
        Lower-case extensions (before any ``.gz``) that make a bare path this format.
    description : str
        One line for ``wefe-same models``.
    scheme : bool
        ``FORMAT:PATH`` names it (False: only a bare path's extension does, as ``.txt``).
    """

    name: str
    open: Callable[[str, str, LoadOptions], ModelSource]
    extensions: tuple[str, ...] = ()
    description: str = ""
    scheme: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not NAME.fullmatch(self.name):
            raise ModelError(f"a file format's name is a letter, then letters, digits, '_' or '-', not {self.name!r}")
        if not callable(self.open):
            raise ModelError(f"file format {self.name!r}: open must be callable")
        if any(not e.startswith(".") or e != e.lower() for e in self.extensions):
            raise ModelError(f"file format {self.name!r}: extensions are lower-case and start with '.'")


def _vectors_file(label: str) -> Callable[[str, str, LoadOptions], ModelSource]:
    def open_file(name: str, location: str, options: LoadOptions) -> ModelSource:
        return open_vectors_file(name, Path(location), label=label, options=options)  # type: ignore[arg-type]

    open_file.__doc__ = f"A {label} file: text or binary, header or not, decided from its content when first read."
    return open_file


def _npy(name: str, location: str, options: LoadOptions) -> ModelSource:
    """``EMB.npy,VOCAB.txt``: a matrix and its vocabulary, one word a line."""
    parts = location.split(",")
    if len(parts) != 2:
        raise ModelError(f"model {name!r}: npy needs 'npy:EMB.npy,VOCAB.txt', got {location!r}")
    emb, vocab = (Path(p) for p in parts)
    return lazy_npy(name, emb, vocab, options)


def _gensim(name: str, location: str, options: LoadOptions) -> ModelSource:
    """A gensim ``KeyedVectors`` or ``Word2Vec`` pickle (read only with trust_pickle)."""
    return lazy_gensim_pickle(name, Path(location), options)


def _extensions(name: str) -> tuple[str, ...]:
    return tuple(e for e, f in EXTENSIONS.items() if f == name)


#: The built-in formats; their names are :data:`wefe_same.models.specs.FORMATS` and their
#: extensions :data:`~wefe_same.models.specs.EXTENSIONS`.
BUILTIN_FORMATS: tuple[FileFormat, ...] = (
    FileFormat("word2vec", _vectors_file("word2vec"), _extensions("word2vec"), "word2vec binary or text"),
    FileFormat("glove", _vectors_file("glove"), _extensions("glove"), "GloVe text (no header)"),
    FileFormat("fasttext", _vectors_file("fasttext"), _extensions("fasttext"), "fastText .vec text or .bin model"),
    FileFormat("gensim", _gensim, _extensions("gensim"), "a gensim KeyedVectors or Word2Vec pickle"),
    FileFormat("npy", _npy, _extensions("npy"), "EMB.npy,VOCAB.txt"),
    FileFormat("text", _vectors_file("text"), _extensions("text"), "word2vec text or GloVe, by content",
               scheme=False),
)


@cache
def plugin_formats() -> Mapping[str, tuple[FileFormat, str]]:
    """The installed plugins' formats with their package (``NAME VERSION``), loaded once per
    process (:func:`~wefe_same.plugins.load_entry_points`): one that takes a built-in's name,
    or an extension of a built-in or earlier format, is one warning and left out too."""
    claimed = {e for f in BUILTIN_FORMATS for e in f.extensions}

    def check(fmt: FileFormat) -> None:
        if clash := sorted(set(fmt.extensions) & claimed):
            raise ModelError(f"claims the extension {clash[0]} of a built-in or earlier format")
        claimed.update(fmt.extensions)

    return MappingProxyType(load_entry_points(ENTRY_POINT_GROUP, "file format", FileFormat,
                                              [f.name for f in BUILTIN_FORMATS], name_of=lambda f: f.name,
                                              error=ModelError, check=check))


def file_formats() -> dict[str, FileFormat]:
    """Every format by name: the built-in ones, then the installed plugins'."""
    return {**{f.name: f for f in BUILTIN_FORMATS}, **{n: f for n, (f, _) in plugin_formats().items()}}


def file_format(scheme: str) -> FileFormat | None:
    """The format ``SCHEME:PATH`` names, or None (the scheme is not a file format)."""
    if scheme in FORMATS:  # a built-in: no entry point is read
        return next(f for f in BUILTIN_FORMATS if f.name == scheme)
    fmt = file_formats().get(scheme)
    return fmt if fmt is not None and fmt.scheme else None


def guess_format(path: Path) -> FileFormat:
    """The format of a bare path from its name alone (``m.txt.gz`` counts as ``.txt``).

    Nothing is opened: ``.bin`` may hold word2vec binary or a fastText model and ``.txt``
    word2vec text or GloVe; the content decides when the file is read. A bare ``NAME.gz``
    (gensim-data's layout) is "text" too, its content deciding the same way.

    >>> [guess_format(Path(p)).name for p in ("m.txt.gz", "m.bin", "d/NAME.gz")]
    ['text', 'word2vec', 'text']
    """
    inner = strip_gz(path)
    suffix = inner.suffix.lower()
    by_extension = {e: f for f in BUILTIN_FORMATS for e in f.extensions}
    if suffix not in by_extension and suffix:
        by_extension.update({e: f for f in file_formats().values() for e in f.extensions})
    if suffix in by_extension:
        return by_extension[suffix]
    if inner != path and not suffix:
        return by_extension[".txt"]
    raise ModelError(f"{path}: cannot guess the format from {path.name!r}; write FORMAT:PATH with FORMAT in "
                     + ", ".join(n for n, f in file_formats().items() if f.scheme))
