"""Model specs as users type them, parsed without opening any file: ``NAME=`` prefixes,
default names, formats guessed from file names, and :class:`LoadOptions`, the options
every source builder receives.

Which spec means which model (the catalog, schemes, variants) is decided in
:mod:`wefe_same.models.catalog`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from wefe_same.errors import ModelError, printable
from wefe_same.models.debias.registry import suffixes

UnicodeErrors = Literal["strict", "replace", "ignore"]
TemplateItems = Literal["sentences", "words"]
#: What a word in templates gives the sets of a query (:attr:`LoadOptions.template_items`).
TEMPLATE_ITEMS: tuple[TemplateItems, ...] = ("sentences", "words")


@dataclass(frozen=True)
class LoadOptions:
    """Options that apply to every model of a run.

    Attributes
    ----------
    trust_pickle : bool
        Allow gensim ``.kv``/``.model`` pickles given by path (loading one runs code).
    unicode_errors : {"strict", "replace", "ignore"}
        How a word that is not valid UTF-8 in a text or binary embedding file is decoded:
        "strict" stops with an error naming the file and line (default); the others
        decode it leniently, as gensim's ``unicode_errors`` does, and report it.
    subwords : bool
        fastText ``.bin`` models build vectors of out-of-vocabulary words from their
        character n-grams (marked ``subword`` in lookups.csv); False refuses them.
    templates : tuple of str
        Sentence templates with a ``{word}`` slot for encoder models. Empty: every word is
        encoded alone.
    template_items : {"sentences", "words"}
        Encoders in templates: "sentences" (default) makes every filled template an item of
        its word's set, encoded alone, as SEAT (May et al. 2019) and bias-bench do; "words"
        makes each word one item, the mean of its template vectors.
    allow_download : bool
        Let encoder models be fetched from the Hugging Face hub; default only local
        folders and the local cache are used.
    cache : bool or str
        Where encoders keep unpacked archives and file hashes: True the cache directory
        (``$WEFE_SAME_CACHE`` or the user cache dir), a path, or False for a scratch
        folder removed at exit (``--no-cache`` writes nothing in the cache directory).
    name_templates : tuple of str
        Encoders: templates for words that start with a capital letter (``--templates seat``).
    template_label : str or None
        What an encoder's name shows for its templates (``seat``, a file's name).
    contexts : str or None
        Encoders: a file of sentences; each word is encoded in the sentences that hold it.
    contexts_per_word : int
        At most this many context sentences per word, drawn with ``seed``.
    seed : int
        Seeds the draw of context sentences.
    device : {"auto", "cpu", "cuda"}
        Where torch encoders run: ``auto`` (default) on CUDA when torch sees a device,
        else the CPU (:func:`wefe_same.models.encoders.settings.torch_device`).
    """

    trust_pickle: bool = False
    unicode_errors: UnicodeErrors = "strict"
    subwords: bool = True
    templates: tuple[str, ...] = field(default=())
    allow_download: bool = False
    cache: bool | str = True
    name_templates: tuple[str, ...] = field(default=())
    template_label: str | None = None
    contexts: str | None = None
    contexts_per_word: int = 20
    seed: int = 0
    device: Literal["auto", "cpu", "cuda"] = "auto"
    template_items: TemplateItems = "sentences"


#: The built-in file formats' names (``FORMAT:PATH``; their specs: :mod:`wefe_same.models.readers.formats`).
FORMATS = ("word2vec", "glove", "fasttext", "gensim", "npy")

def strip_gz(path: Path) -> Path:
    """``m.txt.gz`` → ``m.txt``: the name whose suffix tells the format.

    >>> strip_gz(Path("d/m.txt.gz")), strip_gz(Path("m.bin"))
    (PosixPath('d/m.txt'), PosixPath('m.bin'))
    """
    return path.with_suffix("") if path.suffix.lower() == ".gz" else path


#: Extensions (before any ``.gz``) that tell a bare path's built-in format; "text" is word2vec
#: text with a ``V d`` header, else GloVe, decided when the file is read. The formats
#: themselves, and the plugins' with theirs: :mod:`wefe_same.models.readers.formats`.
EXTENSIONS = {".bin": "word2vec", ".vec": "fasttext", ".kv": "gensim", ".model": "gensim", ".txt": "text"}


def default_name(location: str) -> str:
    """The model name a path gets: its file name without ``.gz`` and one extension (the
    bytes of a non-UTF-8 file name shown as ``\\xNN``: :func:`~wefe_same.errors.printable`).

    >>> default_name("/data/glove.6B.50d.txt.gz"), default_name("m.bin"), default_name("e.npy,v.txt")
    ('glove.6B.50d', 'm', 'e')
    """
    return printable(strip_gz(Path(location.split(",")[0])).stem)


# --------------------------------------------------------------------------- the grammar
#: Variant suffixes, applied right to left: ``BASE+hard-debias``; each may carry options in
#: brackets, ``+hsr-debias[alpha=30]``. The suffixes are the debiasing methods' names, the
#: built-in ones and the installed plugins' (:func:`wefe_same.models.debias.registry.suffixes`);
#: which options a method takes is its spec's affair (:mod:`wefe_same.models.debias.methods`).
HARD_DEBIAS, RELIGION_DEBIAS, RACE_DEBIAS = "+hard-debias", "+debias-religion", "+debias-race"
DOUBLE_HARD_DEBIAS, HSR_DEBIAS, RAN_DEBIAS = "+double-hard-debias", "+hsr-debias", "+ran-debias"


def _variant_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(the last ``+METHOD[options]`` of a spec, an unclosed ``+METHOD[``) for every method."""
    names = "|".join(re.escape(s) for s in suffixes())
    return (re.compile("(?P<suffix>" + names + r")(?:\[(?P<options>[^\[\]]*)\])?$"),
            re.compile("(?:" + names + r")\[[^\]]*$"))
_SCHEME = re.compile(r"^[A-Za-z][\w-]+:")  # "hf:…", not a drive letter "C:…"
#: The only wildcards of a path; ``[`` and ``]`` are literal in paths.
WILDCARDS = ("*", "?")


@dataclass(frozen=True)
class Variant:
    """One ``+METHOD`` or ``+METHOD[options]`` of a spec; ``options`` None when no brackets."""

    suffix: str
    options: str | None = None

    def __str__(self) -> str:
        return self.suffix if self.options is None else f"{self.suffix}[{self.options}]"


@dataclass(frozen=True)
class ModelSpec:
    """A model spec string split by the one grammar every entry point uses::

        spec    := [NAME "="] base variant*
        variant := "+" METHOD ["[" KEY=VALUE,... "]"]      (METHOD: a debiasing method's name)
        base    := catalog name | SCHEME ":" LOCATION | path

    Brackets are variant options and nothing else: a ``[`` in a path (``data/m[1].txt``)
    is a literal character, never a glob class; ``*`` and ``?`` are the only wildcards
    (:attr:`is_glob`), and a path that exists is taken as it is. The "=" of ``NAME=``
    comes before any ":", path separator or "[" (``./a=b.txt`` is a file).
    ``str(spec)`` gives back the text parsed.

    >>> s = parse_spec("mine=glove-6b-50d+hsr-debias[alpha=30]+hard-debias")
    >>> s.name, s.base, [str(v) for v in s.variants], s.parent.body
    ('mine', 'glove-6b-50d', ['+hsr-debias[alpha=30]', '+hard-debias'], 'glove-6b-50d+hsr-debias[alpha=30]')
    >>> parse_spec("glove:d/m[1].txt").location, parse_spec("hf:zoo/*").is_glob
    ('d/m[1].txt', True)
    """

    name: str
    base: str
    variants: tuple[Variant, ...] = ()

    @property
    def body(self) -> str:
        """The spec without its ``NAME=``: what decides which model it is."""
        return self.base + "".join(map(str, self.variants))

    def __str__(self) -> str:
        return (f"{self.name}=" if self.name else "") + self.body

    @property
    def scheme(self) -> str:
        """``hf``, ``glove``, … of ``SCHEME:LOCATION``; "" for a catalog name or a bare path."""
        match = _SCHEME.match(self.base)
        return match.group(0)[:-1] if match else ""

    @property
    def location(self) -> str:
        """The base after ``SCHEME:`` (the whole base without a scheme)."""
        return self.base[len(self.scheme) + 1:] if self.scheme else self.base

    @property
    def is_glob(self) -> bool:
        """The base's location holds a wildcard (``*`` or ``?``)."""
        return any(w in self.location for w in WILDCARDS)

    @property
    def parent(self) -> ModelSpec | None:
        """The unnamed spec this variant is made from (its last variant dropped); None for a base."""
        return ModelSpec("", self.base, self.variants[:-1]) if self.variants else None

    def with_base(self, base: str, *, name: str | None = None) -> ModelSpec:
        """The same variants on another base (a glob's match, a path made absolute)."""
        return ModelSpec(self.name if name is None else name, base, self.variants)


def parse_spec(spec: str) -> ModelSpec:
    """``spec`` split by the grammar of :class:`ModelSpec`; a :class:`ModelError` naming it otherwise."""
    if not isinstance(spec, str):
        raise ModelError(f"a model spec must be a string, not {type(spec).__name__}")
    name, rest = split_name(spec)
    if not name and rest != spec:
        raise ModelError(f"model spec {_shown(spec)}: the name before '=' is empty")
    variants: list[Variant] = []
    last_variant, unclosed = _variant_patterns()
    while match := last_variant.search(rest):
        variants.insert(0, Variant(match["suffix"], match["options"]))
        rest = rest[:match.start()]
    if unclosed.search(rest):
        raise ModelError(f"model spec {_shown(spec)}: the variant options after '[' need a closing ']'")
    if not rest.strip():
        raise ModelError(f"model spec {_shown(spec)}: no model before " + (
            f"the variant {variants[0]}" if variants else "the end"))
    return ModelSpec(name, rest, tuple(variants))


def _shown(spec: str) -> str:
    return repr(spec if len(spec) <= 80 else spec[:79] + "…")


def split_name(spec: str) -> tuple[str, str]:
    """``NAME=SPEC`` → (NAME, SPEC), where the "=" comes before any ":", path separator or
    "[" (variant options such as ``+hsr-debias[alpha=10]``).

    >>> split_name("mine=glove:/data/g.txt"), split_name("glove:/data/a=b.txt")
    (('mine', 'glove:/data/g.txt'), ('', 'glove:/data/a=b.txt'))
    >>> split_name("m+hsr-debias[alpha=1]")
    ('', 'm+hsr-debias[alpha=1]')
    """
    if "=" in re.split(r"[:/\\\[]", spec, maxsplit=1)[0]:
        name, _, rest = spec.partition("=")
        return printable(name), rest
    return "", spec


def looks_like_path(spec: str) -> bool:
    """A spec that is meant as a file even when there is none: a separator or a model extension.

    >>> looks_like_path("data/m.txt"), looks_like_path("m.vec.gz"), looks_like_path("glove-6b-5d")
    (True, True, False)
    """
    return ("/" in spec or "\\" in spec or spec.lower().endswith(".gz")
            or Path(spec).suffix.lower() in (*EXTENSIONS, ".txt", ".npy"))
