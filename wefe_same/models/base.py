"""What every model source is: :class:`ModelSource`, the base class that declares what a
source can do, and :func:`as_source`, which adapts a user's duck-typed object to it.

A source answers one question, :meth:`ModelSource.lookup`, for a batch of words. The
framework asks it once per model per run, for the union of every query word (with
casing variants), so a source never has to hand over a whole embedding matrix.

What a source can do beyond ``lookup`` is *declared* (class attributes and properties
with defaults here), never probed with ``getattr``: the framework reads
``source.open_vocabulary``, ``source.has_vocabulary``, ``source.spec`` and calls
``source.identity()`` and ``source.lookup_with_status(words)`` on every source
(``source.lookup_matrix(words)`` first on an open-vocabulary one).
"""

from __future__ import annotations

import abc
from collections.abc import Collection, Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.validation import OptionSpec

#: What :meth:`ModelSource.lookup_with_status` returns: the vectors (as ``lookup``) and
#: the words among them whose vector was built from character n-grams (fastText).
StatusLookup = tuple[dict[str, np.ndarray], frozenset[str]]

NO_VOCABULARY = ("model {name!r} ({kind}) cannot list its vocabulary: it has no vocabulary(limit) method "
                 "returning (words, vectors) in frequency order")


class ModelSource(abc.ABC):
    """What the framework needs from an embedding model, and what it may declare.

    Subclasses implement ``lookup`` and ``describe`` and set ``name``; the rest
    has defaults that a source overrides when it can do more:

    - ``has_vocabulary`` and ``vocabulary``: the first words and their vectors, for
      analogy benchmarks (default False: ``vocabulary`` raises a ``ModelError``);
    - ``identity``: a JSON-able dict that identifies the model's vectors without
      parsing them: the cache key, so a run whose scores are cached parses no model file
      (it reads small files once to hash them, and 3 MB of large ones).
      Files: format, absolute path, size, mtime_ns, ctime_ns, inode and a content hash of
      each (``file_identity``) and the reading options;
      catalog entries: package, version and their data files' keys;
      encoders: settings (templates, pooling, layer), the hub revision or the files'
      sha256 (hashed once, then remembered by file stats), library versions; variants:
      the base's identity and a hash of the word lists. None (the default): never cached;
    - ``open_vocabulary``: True when every string has a vector (encoders); the framework
      then asks for the words as written only, without casing variants;
    - ``sentence_items`` and ``lookup_items``: an encoder in templates whose every filled
      template is an item of its word's set (SEAT's way; ``LoadOptions.template_items``):
      the run's table then holds one row per sentence (default: False, one row per word);
    - ``lookup_with_status``: like ``lookup``, plus the words whose vectors were built
      from subwords rather than read from the vocabulary (fastText ``.bin``); they are
      marked ``subword`` in lookups.csv (default: none);
    - ``lookup_matrix``: an open-vocabulary source's vectors as the rows of one
      matrix, for tables of thousands of words without an array per word (default: not
      offered, and ``lookup`` is used);
    - ``decode_warnings``: "FILE:LINE: b'...' decoded as '...'" strings for words decoded
      leniently (``LoadOptions.unicode_errors``);
    - ``spec``: the string it was resolved from, so that worker processes can resolve it
      again (None: the object itself is sent to workers);
    - ``spec_options`` and ``from_spec``: how a kind registered under a scheme
      (``wefe_same.models.kinds``) is built from ``SCHEME:LOCATION,key=value,...``.

    >>> class Toy(ModelSource):
    ...     name = "toy"
    ...     def lookup(self, words):
    ...         return {w: np.ones(2) for w in words if w == "a"}
    ...     def describe(self):
    ...         return {"kind": "toy"}
    >>> toy = Toy()
    >>> toy.identity(), toy.open_vocabulary, toy.has_vocabulary, toy.lookup_with_status(["a", "b"])[1]
    (None, False, False, frozenset())
    """

    name: str
    #: The spec string it was resolved from (set by ``resolve_model``), or None.
    spec: str | None = None
    #: Every string has a vector (encoders).
    open_vocabulary: bool = False
    #: :meth:`vocabulary` lists the first words in frequency order.
    has_vocabulary: bool = False
    #: The options a spec of this kind may give, ``SCHEME:LOCATION,key=value,...``, checked and
    #: parsed before :meth:`from_spec` (a registered kind only; empty: the location is the
    #: whole text after ``SCHEME:``).
    spec_options: ClassVar[Mapping[str, OptionSpec]] = MappingProxyType({})

    @classmethod
    def from_spec(cls, name: str, location: str, options: Mapping[str, Any]) -> ModelSource:
        """The source of ``SCHEME:LOCATION`` for a kind registered under a scheme: ``name`` the
        spec's ``NAME=`` (default ``SCHEME:LOCATION``), ``options`` the declared
        ``spec_options`` the spec gives, checked. Default: ``cls(name, location, **options)``.
        It checks the location and opens nothing heavy: vectors are read on the first lookup."""
        return cls(name, location, **options)  # type: ignore[call-arg]

    @property
    def decode_warnings(self) -> Sequence[str]:
        """Lenient decodings of words that are not UTF-8 (default: none)."""
        return ()

    @abc.abstractmethod
    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        """Vectors of those ``words`` the model knows; unknown words are left out."""

    @abc.abstractmethod
    def describe(self) -> dict[str, str]:
        """Provenance for the manifest (kind, path, package, size); opens no file."""

    @property
    def type_name(self) -> str:
        """The class name that messages show (the user's own class for an adapted object)."""
        return type(self).__name__

    def identity(self) -> dict[str, Any] | None:
        """The cache key (see the class docstring); None: never cached."""
        return None

    def lookup_with_status(self, words: Collection[str]) -> StatusLookup:
        """(``lookup(words)``, the words among them built from subwords: none by default)."""
        return self.lookup(words), frozenset()

    @property
    def sentence_items(self) -> bool:
        """Each word is several items, one per filled template (``lookup_items``)."""
        return False

    def lookup_items(self, words: Sequence[str]) -> tuple[list[str], np.ndarray, dict[str, tuple[int, ...]]]:
        """With ``sentence_items``: (the sorted distinct item labels, their float64 rows,
        each of the sorted distinct ``words``' rows); see ``EncoderSource.lookup_items``."""
        raise NotImplementedError(f"{self.type_name} has no sentence items")

    def lookup_matrix(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray] | None:
        """Sorted distinct ``words``' vectors as one float64 matrix, row ``i`` for ``words[i]``,
        and a bool array of the words that have one (the others' rows are zeros); the same
        vectors as ``lookup``, none built from subwords (a subclass that changes ``lookup``
        changes this too). None (the default): not offered."""
        return None

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The first ``limit`` words and their raw float32 vectors; only when ``has_vocabulary``."""
        raise ModelError(NO_VOCABULARY.format(name=self.name, kind=self.type_name))

    def language_model(self) -> tuple[str | None, str]:
        """(the folder of this model's Hugging Face files, "") or (None, why it has none):
        the likelihood scores need a masked or causal language model. Default: static
        word vectors, no language model."""
        return None, "static word vectors: not a language model"


class UserSource(ModelSource):
    """A user's object that has ``name``, ``lookup`` and ``describe`` but does not subclass
    :class:`ModelSource`, adapted to it once: what it can do is read here, at the boundary,
    and declared like any source's.

    >>> class Mine:
    ...     name = "mine"
    ...     def lookup(self, words):
    ...         return {}
    ...     def describe(self):
    ...         return {"kind": "user"}
    >>> src = as_source(Mine())
    >>> src.name, src.has_vocabulary, src.identity(), src.describe()
    ('mine', False, None, {'kind': 'user'})
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.open_vocabulary = bool(getattr(inner, "open_vocabulary", False))
        self.has_vocabulary = callable(getattr(inner, "vocabulary", None))
        self._identity = callable(getattr(inner, "identity", None))
        self._with_status = callable(getattr(inner, "lookup_with_status", None))

    @property
    def name(self) -> str:
        return self.inner.name

    @name.setter
    def name(self, value: str) -> None:
        self.inner.name = value

    @property
    def type_name(self) -> str:
        return type(self.inner).__name__

    @property
    def decode_warnings(self) -> Sequence[str]:
        return list(getattr(self.inner, "decode_warnings", ()))

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        return self.inner.lookup(words)

    def describe(self) -> dict[str, str]:
        return self.inner.describe()

    def identity(self) -> dict[str, Any] | None:
        return self.inner.identity() if self._identity else None

    def lookup_with_status(self, words: Collection[str]) -> StatusLookup:
        if self._with_status:
            found, subword = self.inner.lookup_with_status(words)
            return found, frozenset(subword)
        return self.inner.lookup(words), frozenset()

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        if not self.has_vocabulary:
            raise ModelError(NO_VOCABULARY.format(name=self.name, kind=self.type_name))
        return self.inner.vocabulary(limit)

    def __repr__(self) -> str:
        return f"UserSource({self.inner!r})"


def is_source_like(obj: object) -> bool:
    """Whether ``obj`` is a :class:`ModelSource` or an object :func:`as_source` can adapt."""
    return isinstance(obj, ModelSource) or (
        hasattr(obj, "name") and callable(getattr(obj, "lookup", None)) and callable(getattr(obj, "describe", None)))


def as_source(obj: Any) -> ModelSource:
    """``obj`` itself when it is a :class:`ModelSource`, else ``obj`` adapted by :class:`UserSource`."""
    if isinstance(obj, ModelSource):
        return obj
    if not is_source_like(obj):
        raise ModelError(f"a model must be a name, a path or a ModelSource, not {type(obj).__name__}")
    return UserSource(obj)


def source_vocabulary(source: ModelSource, limit: int | None, *,
                      name: str | None = None) -> tuple[list[str], np.ndarray]:
    """``source.vocabulary(limit)``, or a :class:`ModelError` naming the model when it has none.

    Built-in sources list their first ``limit`` words in file (frequency) order; a user
    object that only implements :meth:`ModelSource.lookup` cannot, and analogy
    benchmarks (which search the whole vocabulary) need it.
    """
    if not source.has_vocabulary:
        raise ModelError(NO_VOCABULARY.format(name=name or source.name, kind=source.type_name))
    return source.vocabulary(limit)


def lookup_with_status(source: ModelSource, words: Collection[str]) -> StatusLookup:
    """``source.lookup_with_status(words)``, its subword words as a frozenset."""
    found, subword = source.lookup_with_status(words)
    return found, frozenset(subword)
