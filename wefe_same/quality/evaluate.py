"""``evaluate_quality``: many models × many quality benchmarks → one tidy table.

A benchmark is a bundled name (:data:`BENCHMARKS`: the copies of WordSim353, SimLex-999
and the Google analogies that ship in gensim's test data) or a file: ``PATH`` (the kind
is detected from the content), ``sim:PATH`` or ``analogy:PATH``, each optionally
prefixed with ``NAME=`` to choose the name used in the table.

Each model's first ``analogy_vocab`` words are read once (``vocabulary(limit)`` of the
source) and serve every benchmark: they are the analogy candidates and, as gensim's
``restrict_vocab``, the words a benchmark item may use. Words match case-insensitively
(gensim's ``case_insensitive=True``). With the defaults the scores equal gensim's
``evaluate_word_pairs`` (Spearman) and ``evaluate_word_analogies`` (accuracy).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from wefe_same.errors import QualityError, WefeSameWarning, bad_parameter, unknown_name
from wefe_same.models.catalog import resolve_models
from wefe_same.models.sources import ModelSource, source_vocabulary
from wefe_same.quality.analogy import METHODS, AnalogyMethod, evaluate_analogy
from wefe_same.quality.datasets import (
    AnalogyDataset,
    Kind,
    SimilarityDataset,
    detect_kind,
    load_analogy,
    load_similarity,
)
from wefe_same.quality.similarity import Missing, check_missing, evaluate_similarity
from wefe_same.quality.vocab import Vocabulary
from wefe_same.validation import BENCHMARK_FILE_MAX_BYTES, check_regular_file

Dataset = SimilarityDataset | AnalogyDataset
#: Columns of :func:`evaluate_quality`'s table, in order.
COLUMNS = ["model", "benchmark", "score", "coverage", "n_items", "n_found", "n_evaluated", "n_correct",
           "kind", "method", "missing", "reason"]
#: Why an analogy benchmark has no score for a model that cannot list its vocabulary.
NO_VOCABULARY = ("model {model!r} cannot list its vocabulary ({why}); an analogy benchmark searches the "
                 "model's most frequent words for the answer")
#: Prefixes that force the kind of a benchmark file.
KIND_PREFIXES: dict[str, Kind] = {"sim": "similarity", "similarity": "similarity", "analogy": "analogy"}


@dataclass(frozen=True)
class Benchmark:
    """A benchmark whose file ships in gensim's test data."""

    name: str
    kind: Kind
    filename: str
    description: str

    @property
    def path(self) -> Path:
        from gensim.test.utils import datapath

        return Path(datapath(self.filename))

    def load(self) -> Dataset:
        loader = load_similarity if self.kind == "similarity" else load_analogy
        return loader(self.path, name=self.name)


BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in [
        Benchmark("ws353", "similarity", "wordsim353.tsv",
                  "WordSim353 (Finkelstein et al. 2002): 353 pairs, relatedness and similarity, 0-10"),
        Benchmark("simlex999", "similarity", "simlex999.txt",
                  "SimLex-999 (Hill, Reichart & Korhonen 2015): 999 pairs, similarity, 0-10"),
        Benchmark("google", "analogy", "questions-words.txt",
                  "Google analogies (Mikolov et al. 2013): 19 544 questions in 14 sections"),
    ]
}
DEFAULT_BENCHMARKS = ("ws353", "simlex999", "google")


def load_benchmark(spec: str | Path | Dataset) -> Dataset:
    """Read one benchmark: a bundled name, ``[NAME=][sim:|analogy:]PATH``, or a dataset.

    Raises
    ------
    QualityError
        For an unknown name (listing the valid ones), a missing file, or a malformed line.
    """
    if isinstance(spec, (SimilarityDataset, AnalogyDataset)):
        return spec
    if isinstance(spec, Path):
        spec = str(spec)
    if not isinstance(spec, str):
        raise QualityError(f"a benchmark must be a name, a path or a dataset, not {type(spec).__name__}")
    if spec in BENCHMARKS:
        return BENCHMARKS[spec].load()
    # NAME=SPEC, where the "=" comes before any ":" or path separator (as for models).
    name, _, rest = spec.partition("=") if "=" in re.split(r"[:/\\]", spec, maxsplit=1)[0] else ("", "", spec)
    if name and rest in BENCHMARKS:
        bench = BENCHMARKS[rest]
        return (load_similarity if bench.kind == "similarity" else load_analogy)(bench.path, name=name)
    prefix, sep, location = rest.partition(":")
    kind: Kind | None = None
    if sep and prefix in KIND_PREFIXES:
        kind, rest = KIND_PREFIXES[prefix], location
    path = Path(rest)
    # a FIFO or a device: refused, never read (detect_kind would read it); a missing path is left to below
    check_regular_file(path, what="benchmark file", error=QualityError, max_bytes=BENCHMARK_FILE_MAX_BYTES)
    if not path.is_file():
        if kind is not None or any(ch in rest for ch in "/\\."):
            raise QualityError(f"no such benchmark file {path}")
        raise QualityError(unknown_name("benchmark", rest, BENCHMARKS)
                           + "; or give a path, sim:PATH or analogy:PATH")
    kind = kind or detect_kind(path)
    return (load_similarity if kind == "similarity" else load_analogy)(path, name=name or None)


def lookup_vocabulary(source: ModelSource, words: Sequence[str], *, case_insensitive: bool = True) -> Vocabulary:
    """A :class:`Vocabulary` of ``words`` found by ``source.lookup`` (for sources that cannot
    list their vocabulary): each word as written first, then its lower, title and upper
    case forms when ``case_insensitive``."""
    wanted = list(dict.fromkeys(words))
    if case_insensitive:
        wanted += [f(w) for f in (str.lower, str.title, str.upper) for w in wanted]
        wanted = list(dict.fromkeys(wanted))
    found = source.lookup(wanted)
    order = [w for w in wanted if w in found]
    vectors = np.array([found[w] for w in order], dtype=np.float32).reshape(len(order), -1)
    return Vocabulary(order, vectors, case_insensitive=case_insensitive)


def evaluate_quality(
    models: Sequence[str | ModelSource] | str | ModelSource | None,
    benchmarks: Sequence[str | Path | Dataset] | str = DEFAULT_BENCHMARKS,
    *,
    analogy_vocab: int | None = 300_000,
    analogy_method: AnalogyMethod = "3cosadd",
    missing: Missing = "drop",
    trust_pickle: bool = False,
    progress: bool | None = None,
    sections: bool = False,
) -> pd.DataFrame:
    """Word-similarity and analogy scores of many models.

    Parameters
    ----------
    models : model specs, sources, or None
        Resolved with :func:`wefe_same.models.resolve_models` (None: the installed catalog).
    benchmarks : sequence, default ("ws353", "simlex999", "google")
        Bundled names (:data:`BENCHMARKS`), paths (kind detected from the content),
        ``sim:PATH`` / ``analogy:PATH``, optionally ``NAME=…``, or loaded datasets.
    analogy_vocab : int or None, default 300 000
        K: the model's first K words (file order, i.e. by frequency) are the analogy
        candidates and the only words any benchmark item may use (gensim's
        ``restrict_vocab``); None = the whole vocabulary.
    analogy_method : {"3cosadd", "3cosmul"}, default "3cosadd"
    missing : {"drop", "mean", "zero"}, default "drop"
        Items with a word outside the K words: dropped and counted, evaluated with the
        mean vector in place of each missing word, or scored 0 / wrong (gensim's
        ``dummy4unknown``). See :func:`evaluate_similarity` and :func:`evaluate_analogy`.
    trust_pickle : bool, default False
        Allow gensim ``.kv`` / ``.model`` paths (they run code when loaded).
    progress : bool or None
        Show a progress bar (None: only on a terminal).
    sections : bool, default False
        Add one row per analogy section after each analogy benchmark's row, with
        benchmark ``"NAME/SECTION"`` (e.g. ``"google/capital-world"``) and kind
        ``"analogy-section"``.

    Returns
    -------
    DataFrame
        One row per (model, benchmark), columns :data:`COLUMNS`: ``model``,
        ``benchmark``, ``score`` (Spearman's rho for similarity, accuracy for analogy;
        NaN when nothing could be evaluated), ``coverage`` (share of items whose words
        are all among the K words; with ``missing="drop"`` the share evaluated),
        ``n_items`` (items in the file), ``n_found``, ``n_evaluated``, ``n_correct``
        (analogy), ``kind``, ``method`` ("spearman", "3cosadd" or "3cosmul"), ``missing``,
        ``reason`` (why the score is NaN, else None). A model that cannot list its
        vocabulary (an encoder, a user source with only ``lookup``) gets similarity scores
        from ``lookup`` of the benchmark's words and NaN analogy scores with the reason
        (and a :class:`~wefe_same.errors.WefeSameWarning`).

    Raises
    ------
    QualityError
        Unknown benchmark or option, malformed benchmark file.
    ModelError
        A model spec that cannot be resolved or read.
    """
    if analogy_method not in METHODS:
        raise QualityError(bad_parameter("analogy_method", "evaluate_quality",
                                         "one of " + ", ".join(map(repr, METHODS)), analogy_method))
    check_missing(missing, "evaluate_quality")
    if analogy_vocab is not None and (isinstance(analogy_vocab, bool) or not isinstance(analogy_vocab, int)
                                      or analogy_vocab < 1):
        raise QualityError(bad_parameter("analogy_vocab", "evaluate_quality", "a positive integer or None",
                                         analogy_vocab))
    if isinstance(benchmarks, (str, Path)):
        benchmarks = [benchmarks]
    datasets = [load_benchmark(b) for b in benchmarks]
    if not datasets:
        raise QualityError("no benchmark given")
    names = [d.name for d in datasets]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise QualityError(f"benchmark name {duplicates[0]!r} is used twice; rename one with NAME=PATH")
    sources = resolve_models(models, trust_pickle=trust_pickle)

    rows: list[dict[str, object]] = []
    with tqdm(total=len(sources) * len(datasets), disable=None if progress is None else not progress,
              desc="quality", unit="benchmark") as bar:
        for source in sources:
            vocabulary, no_vocabulary = _model_vocabulary(source, datasets, analogy_vocab)
            for data in datasets:
                bar.set_postfix_str(f"{source.name} / {data.name}")
                base = {"model": source.name, "benchmark": data.name, "reason": None}
                if isinstance(data, SimilarityDataset):
                    sim = evaluate_similarity(data, vocabulary, missing=missing)
                    rows.append({**base, "score": sim.spearman, "coverage": sim.coverage, "n_items": sim.n_items,
                                 "n_found": sim.n_found, "n_evaluated": sim.n_evaluated, "n_correct": None,
                                 "kind": "similarity", "method": "spearman", "missing": missing,
                                 "reason": None if sim.n_evaluated else "no pair of the benchmark is in the model"})
                elif no_vocabulary:
                    warnings.warn(f"{data.name}: no analogy score: {no_vocabulary}", WefeSameWarning, stacklevel=2)
                    rows.append({**base, "score": np.nan, "coverage": 0.0, "n_items": len(data), "n_found": 0,
                                 "n_evaluated": 0, "n_correct": None, "kind": "analogy", "method": analogy_method,
                                 "missing": missing, "reason": no_vocabulary})
                else:
                    ana = evaluate_analogy(data, vocabulary, method=analogy_method, missing=missing)
                    rows.append({**base, "score": ana.accuracy, "coverage": ana.coverage, "n_items": ana.n_items,
                                 "n_found": ana.n_found, "n_evaluated": ana.n_evaluated,
                                 "n_correct": ana.n_correct, "kind": "analogy", "method": analogy_method,
                                 "missing": missing,
                                 "reason": None if ana.n_evaluated else "no question of the benchmark is in the model"})
                    if sections:
                        for sec in ana.sections.itertuples(index=False):
                            rows.append({**base, "benchmark": f"{data.name}/{sec.section}", "score": sec.score,
                                         "coverage": sec.coverage, "n_items": sec.n_items,
                                         "n_found": sec.n_found, "n_evaluated": sec.n_evaluated,
                                         "n_correct": sec.n_correct, "kind": "analogy-section",
                                         "method": analogy_method, "missing": missing})
                bar.update()
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["score"] = table["score"].astype(float)
    table["coverage"] = table["coverage"].astype(float)
    for col in ("n_items", "n_found", "n_evaluated"):
        table[col] = table[col].astype(int)
    table["n_correct"] = table["n_correct"].astype("Int64")
    return table


def _model_vocabulary(source: ModelSource, datasets: Sequence[Dataset],
                      limit: int | None) -> tuple[Vocabulary, str | None]:
    """The first ``limit`` words of the model; or, for a model that cannot list its
    vocabulary (an encoder, a user source with only ``lookup``), a lookup of the
    similarity benchmarks' words and the reason its analogy scores are NaN."""
    if source.has_vocabulary:
        return Vocabulary(*source_vocabulary(source, limit)), None
    open_vocabulary = source.open_vocabulary
    why = ("an encoder: every string has a vector" if open_vocabulary
           else f"{source.type_name} has no vocabulary(limit) method returning (words, vectors) in frequency order")
    words = [w for d in datasets if isinstance(d, SimilarityDataset) for w in (*d.word1, *d.word2)]
    # An encoder knows every casing: the words as written are enough (and 4x less encoding).
    vocabulary = lookup_vocabulary(source, words, case_insensitive=not open_vocabulary)
    return vocabulary, NO_VOCABULARY.format(model=source.name, why=why)
