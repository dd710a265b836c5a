"""``rank``: the WEFE ranking process end to end, mirrored by ``wefe-same rank``.

``rank`` checks its options once (`RankConfig`) and runs
the stages of `wefe_same.run.pipeline`: prepare, score, aggregate, quality,
analyse, result.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from wefe_same.analysis.lipstick import LipstickSettings
from wefe_same.analysis.significance import DEFAULT_RESAMPLES, PAdjust, PValueMethod
from wefe_same.metrics.spec import MetricSpec
from wefe_same.models.sources import ModelSource
from wefe_same.options.choices import CorrelationMethod, NanPolicy, Ties
from wefe_same.options.groups import (
    GROUPS,
    LOAD_GROUPS,
    Bootstrap,
    Encoding,
    Execution,
    External,
    Likelihood,
    Loading,
    Quality,
    coerce,
)
from wefe_same.options.legacy import regroup
from wefe_same.query.expand import DEFAULT_MAX_SUBQUERIES
from wefe_same.query.files import QueriesLike
from wefe_same.result import RankResult
from wefe_same.run import pipeline
from wefe_same.run.config import DEFAULT_QUERIES, RankConfig


def rank(
    models: Sequence[str | ModelSource] | str | ModelSource | None = None,
    queries: QueriesLike = DEFAULT_QUERIES,
    metrics: Sequence[str | MetricSpec] | str | MetricSpec | None = None,
    *positional: Any,
    seed: int = 0,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    missing_threshold: float = 0.2,
    ties: Ties = "min",
    nan_policy: NanPolicy = "skip",
    correlation: CorrelationMethod = "spearman",
    correlation_pvalues: PValueMethod = "exact",
    correlation_resamples: int = DEFAULT_RESAMPLES,
    p_adjust: PAdjust = "holm",
    permutations: int = 10_000,
    shared_words: bool = False,
    max_subqueries: int = DEFAULT_MAX_SUBQUERIES,
    models_file: str | Path | None = None,
    bootstrap: Bootstrap | int | None = None,
    quality: Quality | Sequence[str] | str | None = None,
    external: External | str | Path | pd.DataFrame | None = None,
    likelihood: Likelihood | Sequence[str] | str | None = None,
    lipstick: bool | Mapping[str, Any] | LipstickSettings | None = True,
    encoding: Encoding | Mapping[str, Any] | None = None,
    loading: Loading | Mapping[str, Any] | None = None,
    execution: Execution | Mapping[str, Any] | None = None,
    **flat: Any,
) -> RankResult:
    """Rank embedding models by fairness under many metrics (Badilla et al. 2020, §3.2).

    Every argument is checked before any model is read; a bad one raises
    `InvalidParameterError` (a ``ValueError``) or another
    `WefeSameError` naming the argument, file, set or word.

    Parameters
    ----------
    models : list of model specs, optional
        Catalog names (and variants such as ``glove-6b-50d+hard-debias``), paths
        (``word2vec:PATH``, ``glove:PATH``, ``fasttext:PATH``, ``npy:EMB.npy,VOCAB.txt``,
        ``gensim:PATH``, a guessed extension, ``.gz`` streamed), ``gensim-data:NAME``,
        encoders (``sbert:NAME_OR_PATH``, ``hf:NAME_OR_PATH``), ``SCHEME:ARG`` of a kind
        registered with `register_model_kind` or a ``wefe_same.models`` entry point,
        ``NAME=SPEC``, or `ModelSource` objects. A single string is one model.
        Default: every installed catalog model and its debiased variants.
    queries : bundled name, path, Query, QuerySet or a list of these
        Default: the WEFE case-study sets ``gender``, ``ethnicity``, ``religion``.
    metrics : list of str or MetricSpec, optional
        Names of built-in or installed plugin metrics, and your own metrics
        (`wefe_same.make_metric`), mixed; default every built-in. A single string
        is one metric. With ``workers`` > 1 or a ``scheduler``, a metric of your own
        must be importable by module and name there (not a lambda, a nested function or
        one defined in ``__main__``), or the run is refused before any work.
    seed : int >= 0
        Seeds every stochastic step; the same seed gives the same bytes.
    metric_options : dict, optional
        Per-metric keyword options, e.g. ``{"WEAT-ES": {"ddof": 0}}``; values checked.
    *positional
        ``seed`` and ``metric_options`` by position, the spelling before every option after
        ``metrics`` became keyword-only: accepted in this version with a ``FutureWarning``.
    missing_threshold : float in [0, 1], default 0.2
        A set that loses a larger share of its words makes its subquery NaN.
    ties : {"min", "average", "max", "dense", "first"}
    nan_policy : {"skip", "propagate", "common"}, default "skip"
        How a metric's aggregate treats undefined (NaN) subquery scores: "skip" averages
        each model's defined subqueries; "propagate" gives a NaN aggregate for any NaN;
        "common" averages, for every model, only the subqueries that every model with a
        defined score defines, so that the ranking compares like with like. Whenever
        models are scored on different subqueries of a metric the run warns, naming them.
    correlation : {"spearman", "kendall"}
    correlation_pvalues : {"exact", "asymptotic"}, default "exact"
        P-values of the correlations (``correlation_pvalues``, ``correlation_tests``, the
        report's hover; also ``aggregation_agreement``): the two-sided test of no
        association against the exact null of the pair, ties kept as they are — every
        order enumerated up to 10 models, a seeded permutation test of
        ``correlation_resamples`` resamples above (its Monte Carlo error in ``mc_error``),
        Kendall without ties from scipy's exact distribution. "asymptotic": scipy's t
        (Spearman) or normal (Kendall) approximation, far off with few models.
    correlation_resamples : int >= 1, default 100 000
        Resamples of the permutation test of a correlation above 10 models.
    p_adjust : {"holm", "bh"}, default "holm"
        Adjustment for the k(k−1)/2 tests of the correlation table (Holm 1979, family-wise
        error; Benjamini & Hochberg 1995, false discovery rate), in
        ``correlation_pvalues_adjusted`` and ``correlation_tests.p_adjusted``; the raw
        values stay in ``correlation_pvalues``.
    permutations : int >= 0, default 10 000
        Sampled splits of the WEAT permutation test when there are more than 100 000
        (otherwise exact); 0 skips the test.
    shared_words : bool
        Score every model on the words all models have (per set; aligned tuples whole).
    max_subqueries : int >= 1, default 10 000
        A run whose queries expand into more subqueries (all metrics together) is refused
        before any work, with the count; the bundled library with every metric gives 937.
    models_file : path, optional
        A TOML or CSV file of model specs (added after ``models``) with optional metadata:
        numeric columns join the run like ``external`` columns (``external:NAME``), the
        others are recorded in the manifest; globs (``hf:zoo/*``) expand in sorted order.
        See `wefe_same.run.zoo`.
    bootstrap : Bootstrap or int, optional
        Resampling (`wefe_same.options.groups.Bootstrap`): ``subqueries`` draws (an int is
        that), ``words`` draws inside the sets, ``halves`` of the neutral words (Schröder et
        al. 2021, §5.3.1): intervals of aggregates, correlations and ranks; the ``robustness`` table.
    quality : Quality or list of str, optional
        Quality benchmarks (``ws353``, ``simlex999``, ``google`` or paths) ranked beside;
        ``Quality(benchmarks, analogy_vocab=300_000)``.
    external : External, path or DataFrame, optional
        A ``model`` column plus numeric columns (downstream bias, CrowS-Pairs…) joined to
        the rankings and correlations; lower = less biased unless named in
        ``External(table, higher_is_better=[...])``.
    likelihood : Likelihood or list of str, optional
        Likelihood-based bias benchmarks of language models (``hf:`` folders with a masked
        or causal head), each ``NAME=FILE``: ``crows-pairs=crows_pairs_anonymized.csv``
        (Nangia et al. 2020), ``stereoset=dev.json`` (Nadeem et al. 2021, intrasentence);
        with ``Loading(allow_download=True)`` a bare ``crows-pairs`` or ``stereoset`` is fetched
        once from its authors' repository (pinned commit, checksum). Their figures join the
        rankings and correlations (``likelihood:*`` columns, CrowS-Pairs per bias type too);
        other models get NaN with the reason. ``Likelihood(benchmarks, scoring=...)`` says how
        a masked model scores a sentence: ``"authors"`` (the CrowS-Pairs authors' ``metric.py``;
        StereoSet: its authors' code), ``"bias-bench"`` (Meade et al. 2022), ``"pll"`` (Salazar
        et al. 2020) or ``"aul"`` (Kaneko & Bollegala 2022); causal models always by sentence
        log-likelihood. Several score every masked model under each: the first gives the
        ``likelihood:*`` columns, each pair adds rows to ``measurement_sensitivity``. See
        docs/guide/likelihood.md.
    lipstick : bool or mapping, default True
        Gonen & Goldberg's 2019 tests of every gender-debiased variant beside its base
        (``debias_lipstick``): True with the authors' numbers of words, False off, or a
        mapping of settings (``{"words": 500, "train": 500, "test": 2000, "neighbours": 100,
        "neighbour_words": 500, "vocab": 50000, "gamma": "auto", "n_init": 10, "seeds": 5}``,
        see `wefe_same.analysis.lipstick.LipstickSettings`); k-means and the classifier
        take ``seed``.
    encoding : Encoding or mapping, optional
        How encoders (``sbert:``, ``hf:``) turn a word into items: ``templates`` (``"seat"``,
        a file, or sentences with a ``{word}`` slot) and ``template_items``, ``contexts`` (a
        sentence file) and ``contexts_per_word``, ``vary`` (``["pooling=mean,cls",
        "layer=-1,-4:-1"]``: every ``hf:`` model one variant per combination, compared in
        ``measurement_sensitivity``). See `wefe_same.options.groups.Encoding`.
    loading : Loading or mapping, optional
        How model files are read: ``unicode_errors``, ``subwords``, ``trust_pickle``,
        ``allow_download``, and ``skip_unloadable`` (a model that cannot be used is left out
        with a warning; the manifest and the report list it with its reason).
    execution : Execution or mapping, optional
        Where the work runs, never changing a number: ``workers`` (an int or ``"auto"``),
        ``scheduler`` (a dask.distributed address), ``cache`` (None/True the default folder,
        a path, False none), ``progress``, ``device`` (``"auto"``, ``"cpu"``, ``"cuda"``).
        With ``workers`` > 1 or a ``scheduler``, a metric of your own must be importable
        by module and name there (not a lambda or one defined in ``__main__``).
    **flat
        The options of earlier versions by their flat names (``halves=20``, ``workers=2``,
        ``cache=False``…): moved into their groups, with one ``FutureWarning`` naming the
        group spelling; accepted in this version only.

    Returns
    -------
    RankResult
    """
    # The parameters are RankConfig's fields, in order (tests/options/test_declarations.py keeps them equal).
    options = dict(locals())
    del options["positional"], options["flat"]
    if positional:
        options.update(_positional_options(positional, seed=seed, metric_options=metric_options))
    if flat:  # the flat keywords of earlier versions, moved into their groups with one FutureWarning
        options.update(regroup("rank", flat, {g: options[g] for g in GROUPS}))
    return pipeline.run(RankConfig(**options))


#: The options rank() took positionally after ``metrics`` before they became keyword-only.
POSITIONAL_OPTIONS = ("seed", "metric_options")


def _positional_options(values: tuple[Any, ...], **given: Any) -> dict[str, Any]:
    """``seed`` and ``metric_options`` given by position (the spelling before they became
    keyword-only), with one FutureWarning naming the new spelling; accepted in this version only."""
    if len(values) > len(POSITIONAL_OPTIONS):
        raise TypeError(f"rank() takes 3 positional arguments (models, queries, metrics) and, for this version "
                        f"only, seed and metric_options; {3 + len(values)} were given")
    named = dict(zip(POSITIONAL_OPTIONS, values))
    defaults = {"seed": 0, "metric_options": None}
    for name in named:
        if given[name] is not defaults[name] and given[name] != defaults[name]:
            raise TypeError(f"rank() got multiple values for argument {name!r}")
    spelled = ", ".join(f"{k}={v!r}" for k, v in named.items())
    warnings.warn(f"rank(): give {' and '.join(named)} by keyword, rank(models, queries, metrics, {spelled}); "
                  "by position they are accepted in this version only", FutureWarning, stacklevel=3)
    return named


def load_model(spec: str | ModelSource, *, seed: int = 0, encoding: Encoding | Mapping[str, Any] | None = None,
               loading: Loading | Mapping[str, Any] | None = None,
               execution: Execution | Mapping[str, Any] | None = None, **flat: Any) -> ModelSource:
    """The model ``spec`` as a ranking run sees it, to inspect or save its vectors.

    ``spec`` is anything `rank` takes as a model: a catalog name, a path,
    ``FORMAT:PATH``, an encoder, and any variant (``glove-6b-50d+hard-debias``,
    ``glove-6b-50d+ran-debias[epochs=100]``). Nothing is read until the first lookup.
    ``encoding``, ``loading`` and ``execution`` are `rank`'s groups of the same names (only
    the settings that say how one model is read apply: ``Execution.device`` and ``cache``);
    ``seed`` draws the context sentences.

    Returns
    -------
    ModelSource
        ``lookup(words)`` returns {word: vector (d,)} for the words the model knows, as the
        run's lookup pass receives them (before casing fallbacks and unit-normalising,
        which the run does next); ``describe()`` its provenance; ``identity()`` its cache key.

    >>> model = load_model("glove-6b-50d+hsr-debias")
    >>> sorted(model.lookup(["nurse", "qwxzv"])), model.lookup(["nurse"])["nurse"].shape
    (['nurse'], (50,))
    """
    from wefe_same.models.catalog import resolve_model
    from wefe_same.options.groups import load_options
    from wefe_same.run.arguments import check_spec
    from wefe_same.validation import check_int

    func = "load_model"
    spec = check_spec(spec, "spec", func)  # a Path as its string; 5 or b"…" a TypeError naming 'spec'
    seed = check_int(seed, "seed", func, minimum=0)
    given = {"encoding": encoding, "loading": loading, "execution": execution}
    if flat:  # the flat keywords of earlier versions (trust_pickle=True), with one FutureWarning
        given = regroup(func, flat, given, allowed=LOAD_GROUPS)
    groups: dict[str, Any] = {name: coerce(GROUPS[name], value, name, func) for name, value in given.items()}
    return resolve_model(spec, load_options(groups["loading"], groups["encoding"], groups["execution"], seed=seed))


def export_vectors(spec: str | ModelSource, words: Sequence[str] | str | Path, out: str | Path, *,
                   force: bool = False, **load: Any) -> tuple[int, list[str]]:
    """Write the vectors of ``words`` (a list, or a file with one word a line) as word2vec text.

    The file is written beside ``out`` and renamed into place; an existing regular file
    ``out`` is replaced only with ``force=True``, and anything else there (a symbolic link,
    a directory, a FIFO, a device) never. ``load`` takes `load_model`'s options (``seed``,
    ``encoding``, ``loading``, ``execution``).

    Returns
    -------
    (written, missing) : int and list of str
        How many words were written, and the words the model does not know (left out).
    """
    from wefe_same.output.export import check_destination, read_words, write_word2vec_text
    from wefe_same.run.arguments import check_path, check_spec, word_list
    from wefe_same.validation import check_bool

    func = "export_vectors"
    spec = check_spec(spec, "spec", func)
    out = check_path(out, "out", func)
    force = check_bool(force, "force", func)
    if isinstance(words, (str, os.PathLike)):
        wanted = read_words(check_path(words, "words", func))
    else:
        wanted = list(dict.fromkeys(word_list(words, "words", func)))
    check_destination(Path(out), force=force)  # before any model is read
    found = load_model(spec, **load).lookup(wanted)
    written = write_word2vec_text(Path(out), wanted, found, force=force)
    return written, [w for w in wanted if w not in found]



def seat(models: Sequence[str], tests: Sequence[str | Path] | str | Path, *,
         items: Literal["sentences", "words"] = "sentences", templates: Sequence[str] | str | None = None,
         permutations: int = 100_000, p_value: Literal["tool", "bias-bench"] = "tool",
         seed: int = 0) -> pd.DataFrame:
    """SEAT (May et al. 2019) test files scored on sentence encoders, as bias-bench does.

    ``tests`` are SEAT-format files (one JSON object ``{targ1, targ2, attr1, attr2:
    {category, examples}}``, e.g. bias-bench's ``data/seat/*.jsonl``). ``items="sentences"``
    (default) makes every sentence an item, encoded alone (``hf:`` mean over all tokens,
    specials included; ``sbert:`` the model's pooling); with ``templates`` (``"seat"``) each
    example word becomes one item per template sentence. ``items="words"`` averages each
    word's template vectors into one item, as ``rank(templates=...)`` does. ``p_value="tool"``
    is (k + 1)/(N + 1) (DESIGN.md), ``"bias-bench"`` bias-bench's ``weat.py`` (exact when
    C(2n, n) ≤ ``permutations``, else (1 + #{s_i ≥ s})/n). One row per (model, test): see
    docs/guide/seat.md and the module wefe_same.metrics.seat.
    """
    from wefe_same.run.seat import score_seat
    from wefe_same.validation import check_int

    check_int(permutations, "permutations", "seat", minimum=0)
    files = [tests] if isinstance(tests, (str, os.PathLike)) else list(tests)
    return score_seat([models] if isinstance(models, str) else list(models), files, items=items,
                      templates=templates, permutations=permutations, p_value=p_value, seed=seed)
