"""The option groups of ``rank``, ``load_model`` and ``export_vectors``, each option declared once.

A group is a frozen dataclass, checked when it is built: a bad value raises
``InvalidParameterError`` naming the group and the field ("The 'halves' parameter of
Bootstrap must be an integer >= 0"). A call may give a group, ``None`` (its defaults), a
mapping of its fields, or the group's shorthand (`coerce`): ``bootstrap=200`` is
``Bootstrap(subqueries=200)``, ``quality=["ws353"]`` is ``Quality(benchmarks=("ws353",))``.

Each field's metadata names its ``keyword``: the flat keyword it had before the groups
(``rank(halves=20)``), which is also the ``dest`` of its command-line flag (the CLI's flags
are checked against these declarations by tests/options/test_declarations.py). Settings
that never change a number (workers, cache, progress, device) are kept apart in `Execution`.

Checks that need the package's lower layers (a template set's file, a ``--vary`` spec, a
likelihood benchmark's name, whether CUDA is there) import them when a group is built,
so that ``wefe-same --help`` stays light.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import MISSING, Field, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from wefe_same.errors import bad_parameter
from wefe_same.options.choices import (
    CHANCE_NULLS,
    LIKELIHOOD_SCORINGS,
    TEMPLATE_ITEMS,
    UNICODE_ERRORS,
    UnicodeErrors,
)
from wefe_same.validation import (
    InvalidParameterError,
    as_list,
    check_bool,
    check_choice,
    check_int,
    check_scheduler_address,
    is_int,
)

if TYPE_CHECKING:
    import pandas as pd

    from wefe_same.likelihood.sentences import Scoring
    from wefe_same.models.encoders.settings import Device
    from wefe_same.models.specs import LoadOptions, TemplateItems
    from wefe_same.scoring.chance import ChanceNull

G = TypeVar("G")


def flat(keyword: str) -> dict[str, str]:
    """A group field's metadata: the flat keyword (and CLI ``dest``) it had before the groups."""
    return {"keyword": keyword}


def keyword_of(f: Field) -> str:
    """The flat keyword of a group's field."""
    return f.metadata["keyword"]


def default_of(f: Field) -> Any:
    return f.default if f.default is not MISSING else f.default_factory()  # type: ignore[operator]


def _put(group: object, name: str, value: Any) -> None:
    object.__setattr__(group, name, value)


@contextmanager
def spelled_flat(cls: type, func: str) -> Iterator[None]:
    """Within it, a bad value of a field of ``cls`` is reported under the flat keyword the
    caller spelled it with (a shorthand, a flag, a keyword of earlier versions): "The
    'bootstrap' parameter of rank", not "The 'subqueries' parameter of Bootstrap"."""
    try:
        yield
    except InvalidParameterError as err:
        text = str(err)
        for f in fields(cls):
            prefix = f"The {f.name!r} parameter of {cls.__name__} "
            if text.startswith(prefix):
                raise type(err)(f"The {keyword_of(f)!r} parameter of {func} {text[len(prefix):]}") from None
        raise


def from_flat(cls: type[G], given: Mapping[str, Any], func: str = "rank") -> G:
    """The group ``cls`` from its fields' flat keywords in ``given`` (a parsed command line's
    ``dest`` names), a bad value reported under its flat keyword."""
    with spelled_flat(cls, func):
        return cls(**group_values(cls, given))


def coerce(cls: type[G], value: Any, param: str, func: str = "rank") -> G:
    """``value`` as the group ``cls``: the group itself, None (the defaults), a mapping of its
    fields, or its shorthand (the value of its ``SHORTHAND`` field, a bad one reported under
    ``param``)."""
    if isinstance(value, cls):
        return value
    if value is None:
        return cls()
    if isinstance(value, Mapping):
        known = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        unknown = [k for k in value if k not in known]
        if unknown:
            raise InvalidParameterError(f"The {param!r} parameter of {func} has no setting {unknown[0]!r}; "
                                        f"{cls.__name__} takes {', '.join(known)}.")
        return cls(**value)
    shorthand = getattr(cls, "SHORTHAND", None)
    if shorthand is None:
        article = "an" if cls.__name__[0] in "AEIOU" else "a"
        raise InvalidParameterError(bad_parameter(param, func, f"{article} {cls.__name__}, a mapping of its settings "
                                                  "or None", value))
    with spelled_flat(cls, func):
        return cls(**{shorthand: value})


@dataclass(frozen=True)
class Bootstrap:
    """Resampling behind the intervals of the aggregates, ranks and correlations, the
    robustness table, the chance baselines and the reliability table. Shorthand: an int,
    the draws over subqueries (``bootstrap=200``).

    Parameters
    ----------
    subqueries : int >= 0, default 0
        Draws over subqueries: intervals of aggregates, correlations and ranks.
    words : int >= 0, default 0
        Draws that resample the words inside every set (sizes kept, aligned tuples as
        tuples): intervals of the aggregates and of each model's rank.
    halves : int >= 0, default 0
        Random halves of the neutral words (Schröder et al. 2021, §5.3.1): the ``robustness`` table.
    chance : int >= 0, default 0
        Draws of each chance baseline: a metric's aggregate on the model with its words
        permuted across each subquery's sets, or on random vectors: the ``chance`` table
        (0: none). Without ``chance_every``, only the metrics that have the permutation
        null in one pass: WEAT, WEAT-ES, SAME, SAME-skew, SAME-stereotype
        (`wefe_same.scoring.chance`).
    chance_every : bool, default False
        Every metric and null, each draw one more scoring of every model.
    chance_nulls : tuple of {"permutation", "random"}, default ("permutation",)
        Which chance baselines (`wefe_same.scoring.chance`).
    chance_fitted : bool, default False
        Also the metrics that fit a model per draw (RNSB): a fit per draw and subquery.
    reliability : bool, default False
        The ``reliability`` table (Du et al. 2021): internal and inter-rater consistency of
        the word-level scores per model, test-retest across the seeds a models file declares.
    split_halves : int >= 0, default 0
        Random splits of every set's words into two halves, each half scored: the
        split-half reliability of each metric's ranking (Spearman–Brown corrected).
    """

    SHORTHAND: ClassVar[str] = "subqueries"
    subqueries: int = field(default=0, metadata=flat("bootstrap"))
    words: int = field(default=0, metadata=flat("bootstrap_words"))
    halves: int = field(default=0, metadata=flat("halves"))
    chance: int = field(default=0, metadata=flat("chance"))
    chance_every: bool = field(default=False, metadata=flat("chance_every"))
    chance_nulls: tuple[ChanceNull, ...] = field(default=("permutation",), metadata=flat("chance_nulls"))
    chance_fitted: bool = field(default=False, metadata=flat("chance_fitted"))
    reliability: bool = field(default=False, metadata=flat("reliability"))
    split_halves: int = field(default=0, metadata=flat("split_halves"))

    def __post_init__(self) -> None:
        for name in ("subqueries", "words", "halves", "chance", "split_halves"):
            _put(self, name, check_int(getattr(self, name), name, "Bootstrap", minimum=0))  # np.int64 as int
        nulls = as_list(self.chance_nulls, "chance_nulls", "Bootstrap", item=str)
        if not nulls:
            raise InvalidParameterError(bad_parameter("chance_nulls", "Bootstrap", "one or more of "
                                                      + ", ".join(map(repr, CHANCE_NULLS)), self.chance_nulls))
        _put(self, "chance_nulls", tuple(dict.fromkeys(
            check_choice(n, "chance_nulls", "Bootstrap", CHANCE_NULLS) for n in nulls)))
        for name in ("chance_every", "chance_fitted", "reliability"):
            _put(self, name, check_bool(getattr(self, name), name, "Bootstrap"))


@dataclass(frozen=True)
class Quality:
    """Embedding-quality benchmarks ranked beside the bias metrics. Shorthand: the
    benchmarks (``quality=["ws353"]``).

    Parameters
    ----------
    benchmarks : tuple of str, default ()
        ``ws353``, ``simlex999``, ``google`` or paths of benchmark files.
    analogy_vocab : int >= 1, default 300 000
        Analogy answers are searched among this many most frequent words.
    """

    SHORTHAND: ClassVar[str] = "benchmarks"
    benchmarks: tuple[str, ...] = field(default=(), metadata=flat("quality"))
    analogy_vocab: int = field(default=300_000, metadata=flat("analogy_vocab"))

    def __post_init__(self) -> None:
        _put(self, "benchmarks", () if self.benchmarks is None else tuple(
            os.fspath(q) for q in as_list(self.benchmarks, "benchmarks", "Quality", item=(str, os.PathLike))))
        _put(self, "analogy_vocab", check_int(self.analogy_vocab, "analogy_vocab", "Quality", minimum=1))


@dataclass(frozen=True)
class External:
    """A table of other figures per model (downstream bias, CrowS-Pairs…) joined to the
    rankings and correlations. Shorthand: the table (``external="downstream.csv"``).

    Parameters
    ----------
    table : path or DataFrame, optional
        A ``model`` column plus numeric columns; lower = less biased unless named in
        ``higher_is_better``.
    higher_is_better : tuple of str, default ()
        External columns (of ``table`` or of a models file's metadata) where higher is less biased.
    """

    SHORTHAND: ClassVar[str] = "table"
    table: str | Path | pd.DataFrame | None = field(default=None, metadata=flat("external"))
    higher_is_better: tuple[str, ...] = field(default=(), metadata=flat("higher_is_better"))

    def __post_init__(self) -> None:
        _put(self, "higher_is_better", tuple(as_list(self.higher_is_better, "higher_is_better", "External"))
             if self.higher_is_better else ())


@dataclass(frozen=True)
class Likelihood:
    """Likelihood-based bias benchmarks of language models (CrowS-Pairs, Nangia et al. 2020;
    StereoSet, Nadeem et al. 2021). Shorthand: the benchmarks (``likelihood=["crows-pairs=FILE"]``).

    Parameters
    ----------
    benchmarks : tuple of str, default ()
        Each ``NAME=FILE`` (``crows-pairs=crows_pairs_anonymized.csv``, ``stereoset=dev.json``),
        or a bare name fetched once with ``Loading(allow_download=True)``.
    scoring : tuple of {"authors", "bias-bench", "pll", "aul"}, default ("authors",)
        How a masked model scores a sentence; the first gives the ``likelihood:*`` columns,
        each other one adds rows to ``measurement_sensitivity``. A single name is one scoring.
    """

    SHORTHAND: ClassVar[str] = "benchmarks"
    benchmarks: tuple[str, ...] = field(default=(), metadata=flat("likelihood"))
    scoring: tuple[Scoring, ...] = field(default=("authors",), metadata=flat("likelihood_scoring"))

    def __post_init__(self) -> None:
        from wefe_same.likelihood.evaluate import parse_benchmark

        _put(self, "benchmarks", () if self.benchmarks is None else tuple(
            os.fspath(q) for q in as_list(self.benchmarks, "benchmarks", "Likelihood", item=(str,))))
        for value in self.benchmarks:
            parse_benchmark(value)  # an unknown name fails here, listing the valid ones
        names = tuple(as_list(self.scoring, "scoring", "Likelihood"))
        if not names:
            raise InvalidParameterError("The 'scoring' parameter of Likelihood must name at least one scoring.")
        for name in names:
            check_choice(name, "scoring", "Likelihood", LIKELIHOOD_SCORINGS)
        twice = [n for i, n in enumerate(names) if n in names[:i]]
        if twice:
            raise InvalidParameterError(f"The 'scoring' parameter of Likelihood names {twice[0]!r} twice.")
        if not self.benchmarks and names != ("authors",):
            raise InvalidParameterError("The 'scoring' parameter of Likelihood says how the likelihood benchmarks "
                                        "are scored, and no likelihood benchmark was given.")
        _put(self, "scoring", names)


@dataclass(frozen=True)
class Encoding:
    """How encoder models (``sbert:``, ``hf:``) turn a word into items. No shorthand.

    Parameters
    ----------
    templates : tuple of str, or str, default ()
        Each word is encoded in these sentences (one ``{word}`` slot each); or one name:
        ``"seat"`` (the bleached templates of May et al. 2019, bundled; ``"seat-names"``,
        ``"seat-terms"``) or a file with one template a line.
    template_items : {"sentences", "words"}, default "sentences"
        With ``templates``: every filled template is an item of its word's set, encoded alone,
        as SEAT (May et al. 2019) and bias-bench do; ``"words"``: each word one item, the mean
        of its template vectors.
    contexts : path, optional
        Each word is encoded in up to ``contexts_per_word`` sentences of this file that hold it
        (text, one sentence a line, or ``.jsonl``), drawn with the run's seed; ``hf:`` models
        then pool the word's own tokens unless the spec says otherwise. Excludes ``templates``.
    contexts_per_word : int >= 1, default 20
    vary : list of str or dict, optional
        ``["pooling=mean,cls,word-mean", "layer=-1,-4:-1"]`` (or ``{"pooling": [...]}``): every
        ``hf:`` model becomes one variant per combination, ``BASE[pooling=P,layer=L]``, and
        ``measurement_sensitivity`` compares the rankings under each pair of settings.
    """

    templates: tuple[str, ...] | str = field(default=(), metadata=flat("templates"))
    template_items: TemplateItems = field(default="sentences", metadata=flat("template_items"))
    contexts: str | None = field(default=None, metadata=flat("contexts"))
    contexts_per_word: int = field(default=20, metadata=flat("contexts_per_word"))
    vary: Mapping[str, tuple[str, ...]] | None = field(default=None, metadata=flat("vary"))

    def __post_init__(self) -> None:
        from wefe_same.models.encoders.contexts import TEMPLATE_SETS, load_contexts, template_options
        from wefe_same.models.encoders.settings import ENCODER_OPTIONS, MAX_TEMPLATES
        from wefe_same.models.encoders.vary import parse_vary

        func = "Encoding"
        if isinstance(self.templates, str) and "{word}" not in self.templates:
            template_options(self.templates)  # one template set or file: read (and checked) now
        else:
            _put(self, "templates", tuple(as_list(self.templates, "templates", func)) if self.templates else ())
            if len(self.templates) > MAX_TEMPLATES:
                ENCODER_OPTIONS["templates"].check_parameter(len(self.templates), "templates", func)
            for t in self.templates:
                ENCODER_OPTIONS["template"].check_parameter(t, "templates", func)
                if t.count("{word}") != 1:
                    raise InvalidParameterError(f"The 'templates' parameter of {func} must hold sentences with one "
                                                f"{{word}} slot, or be one of {', '.join(TEMPLATE_SETS)} or a "
                                                f"file. Got {t!r} instead.")
        check_choice(self.template_items, "template_items", func, TEMPLATE_ITEMS)
        _put(self, "contexts_per_word", ENCODER_OPTIONS["contexts_per_word"].check_parameter(
            self.contexts_per_word, "contexts_per_word", func))
        if self.vary is not None:
            _put(self, "vary", parse_vary(self.vary))
        if self.contexts is not None:
            if not isinstance(self.contexts, (str, os.PathLike)):
                raise InvalidParameterError(f"The 'contexts' parameter of {func} must be a file path. "
                                            f"Got {self.contexts!r} instead.")
            if self.templates:
                raise InvalidParameterError(f"The 'contexts' and 'templates' parameters of {func} exclude each "
                                            "other: a word is encoded in its context sentences or in templates.")
            _put(self, "contexts", os.fspath(self.contexts))
            load_contexts(self.contexts)  # a missing or unreadable file fails now, naming itself


@dataclass(frozen=True)
class Loading:
    """How model files are read, and what a model that cannot be used does. No shorthand.

    Parameters
    ----------
    unicode_errors : {"strict", "replace", "ignore"}, default "strict"
        A word that is not valid UTF-8 in a text or binary embedding file: "strict" stops
        with an error naming the file and line; the others decode it leniently, as gensim does.
    subwords : bool, default True
        fastText ``.bin``: vectors of unknown words from their subwords.
    trust_pickle : bool, default False
        Allow gensim ``.kv``/``.model`` pickles given by path (loading one runs code).
    allow_download : bool, default False
        Let encoders be fetched from the Hugging Face hub and bare likelihood benchmarks from
        their authors' repositories; by default only local files are used.
    skip_unloadable : bool, default False
        A model that cannot be used (checked before any work: every such model named at
        once) is left out with a warning instead of stopping the run.
    """

    unicode_errors: UnicodeErrors = field(default="strict", metadata=flat("unicode_errors"))
    subwords: bool = field(default=True, metadata=flat("subwords"))
    trust_pickle: bool = field(default=False, metadata=flat("trust_pickle"))
    allow_download: bool = field(default=False, metadata=flat("allow_download"))
    skip_unloadable: bool = field(default=False, metadata=flat("skip_unloadable"))

    def __post_init__(self) -> None:
        check_choice(self.unicode_errors, "unicode_errors", "Loading", UNICODE_ERRORS)
        for name in ("subwords", "trust_pickle", "allow_download", "skip_unloadable"):
            _put(self, name, check_bool(getattr(self, name), name, "Loading"))


@dataclass(frozen=True)
class Execution:
    """Where and how the work runs; none of these changes a number. No shorthand.

    Parameters
    ----------
    workers : int >= 1 or "auto", default 1
        Local worker processes, one model per task (1: in this process). ``"auto"`` picks
        them from the usable cores, the available memory, the number of models and, with
        encoders on CUDA, the device's free memory; the manifest says how many and why.
    scheduler : str, optional
        A dask.distributed scheduler address; models are the tasks.
    cache : bool, path or None, default None
        Per-model cache of vectors and scores: None/True the default directory
        (``$WEFE_SAME_CACHE`` or the user cache dir), a path, or False for none.
    progress : bool, optional
        Progress bars; default only on a terminal.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where torch encoders run: ``auto`` on CUDA when torch sees a device, else the CPU;
        ``cuda`` without one is refused before any work.
    """

    workers: int | Literal["auto"] = field(default=1, metadata=flat("workers"))
    scheduler: str | None = field(default=None, metadata=flat("scheduler"))
    cache: bool | str | Path | None = field(default=None, metadata=flat("cache"))
    progress: bool | None = field(default=None, metadata=flat("progress"))
    device: Device = field(default="auto", metadata=flat("device"))

    def __post_init__(self) -> None:
        from wefe_same.models.encoders.settings import check_device

        func = "Execution"
        if self.workers != "auto":  # "auto": chosen from the machine and the models (run.workers)
            if not is_int(self.workers) or self.workers < 1:
                raise InvalidParameterError(bad_parameter("workers", func, 'an integer >= 1 or "auto"', self.workers))
            _put(self, "workers", int(self.workers))
        if self.scheduler is not None:  # an address that does not parse fails here, before any work
            if not isinstance(self.scheduler, str):
                raise InvalidParameterError(f"The 'scheduler' parameter of {func} must be an address string. "
                                            f"Got {self.scheduler!r} instead.")
            check_scheduler_address(self.scheduler, func)
        if self.cache is not None and not isinstance(self.cache, (bool, str, os.PathLike)):
            raise InvalidParameterError(f"The 'cache' parameter of {func} must be True, False, None or a folder. "
                                        f"Got {self.cache!r} instead.")
        if self.progress is not None:
            _put(self, "progress", check_bool(self.progress, "progress", func))
        check_device(self.device, func)  # 'cuda' without a CUDA device fails here, before any work

    def in_parallel(self) -> bool:
        """Whether models are sent to other processes (workers > 1 or a scheduler; "auto" keeps
        a metric that cannot be sent in this process)."""
        return self.scheduler is not None or (self.workers != "auto" and self.workers > 1)

    def encoder_cache(self) -> bool | str:
        """LoadOptions.cache: False with the cache off, True for the default directory, else the path."""
        if self.cache is False:
            return False
        return True if self.cache in (None, True) else os.fspath(self.cache)  # type: ignore[arg-type]

    def cache_root(self) -> Path | Literal[False] | None:
        """The cache folder asked for: a path, None for the default one, or False for no cache."""
        if self.cache is False:
            return False
        return None if self.cache in (None, True) else Path(self.cache)  # type: ignore[arg-type]


#: The groups a ranking run takes, by the name of rank's keyword.
GROUPS: dict[str, type] = {"bootstrap": Bootstrap, "quality": Quality, "external": External,
                           "likelihood": Likelihood, "encoding": Encoding, "loading": Loading,
                           "execution": Execution}
#: The groups that say how one model is read (load_model, export_vectors).
LOAD_GROUPS = ("encoding", "loading", "execution")


def load_options(loading: Loading, encoding: Encoding, execution: Execution, *, seed: int) -> LoadOptions:
    """The options every model source of a run, or `load_model`, is built with: the one
    place where the groups become :class:`~wefe_same.models.specs.LoadOptions`."""
    from wefe_same.models.encoders.contexts import template_options
    from wefe_same.models.specs import LoadOptions

    return LoadOptions(trust_pickle=loading.trust_pickle, unicode_errors=loading.unicode_errors,
                       subwords=loading.subwords, allow_download=loading.allow_download,
                       cache=execution.encoder_cache(), contexts=encoding.contexts,
                       contexts_per_word=encoding.contexts_per_word, seed=seed, device=execution.device,
                       template_items=encoding.template_items,
                       **template_options(encoding.templates))  # type: ignore[arg-type]


def group_values(cls: type, given: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of the group ``cls`` that ``given`` holds under their flat keywords:
    ``{"bootstrap_words": 5}`` → ``{"words": 5}`` for `Bootstrap`."""
    return {f.name: given[keyword_of(f)] for f in fields(cls) if keyword_of(f) in given}


def flat_keywords() -> dict[str, tuple[str, str]]:
    """{flat keyword: (group keyword, field)} of every grouped option (``"halves"`` →
    ``("bootstrap", "halves")``)."""
    return {keyword_of(f): (group, f.name) for group, cls in GROUPS.items() for f in fields(cls)}


def spelled(groups: Mapping[str, Mapping[str, Any]]) -> str:
    """The group spelling of some options, for a message: ``bootstrap=Bootstrap(halves=20)``."""
    return ", ".join(f"{g}={GROUPS[g].__name__}({', '.join(f'{k}={v!r}' for k, v in given.items())})"
                     for g, given in groups.items())
