"""Oracle test: wefe_same's metric functions against the ``wefe`` package (v0.4.1).

Both libraries get the *same* vectors: the word2vec GoogleNews WEAT subset bundled with
wefe (``wefe/datasets/data/test_model.kv``; catalog model ``word2vec-gnews-weat`` in
wefe_same), restricted to the words used, scaled to unit length in float64. wefe gets them
as a gensim ``KeyedVectors`` (float64, so no float32 rounding enters), wefe_same as arrays
with one row per word in the order wefe builds its embedding dicts. Words missing from the
model (only "axe", in ``weapons``) are dropped on both sides *before* the queries are
built, and wefe runs with ``lost_vocabulary_threshold=0.0``, so a word wefe failed to find
would turn its result into NaN and fail the test instead of being filtered silently.

Queries: the ten WEAT queries of wefe_same's ``weat.toml`` (roles as that file has them)
for WEAT and WEAT effect size; (2, 1) subqueries (the target pair with each attribute set)
for RND, ECT and RIPA; (1, 2) subqueries (each target set with the attribute pair) for MAC.

What each library computes (read from wefe 0.4.1's source, wefe/metrics/*.py) and how the
values relate:

* WEAT: both Σ_X s(x,A,B) − Σ_Y s(y,A,B) with s = mean cos to A − mean cos to B. Equal.
* WEAT effect size: wefe divides by ``np.std`` of s over X ∪ Y, i.e. the population std
  (ddof=0); it equals ``weat_effect_size(..., ddof=0)``. wefe_same's default ddof=1
  (Caliskan et al.'s sample std) is larger by exactly sqrt(n / (n − 1)), n = |X| + |Y|;
  the ``weat_es_ddof1`` case checks that relation rather than equality.
* RND: same distances and sign (‖a − avg T1‖ − ‖a − avg T2‖, positive = A closer to T2),
  but wefe returns the *mean* over the attribute words (``sum_of_distances /
  len(distance_by_words)`` in ``RND.__calc_rnd``) while wefe_same returns the *sum*, as
  in Garg et al. 2018 eq. 3. So wefe == wefe_same / |A|. (wefe's ``normalize=False``
  default uses raw vectors; here every vector is already unit length, so wefe_same's
  ``normalize`` flag makes no difference and is passed as False.)
* ECT: wefe computes ``1 − scipy.spatial.distance.cosine(mean T_i, a)``, wefe_same
  ``a · mean T_i / ‖mean T_i‖``, which is the same cosine because ``a`` is a unit
  vector; both take Spearman's rho of the two similarity lists. Equal.
* RIPA: both average over attribute words of the mean over the aligned pairs (x_i, y_i)
  of a · (x_i − y_i)/‖x_i − y_i‖. Equal. Pairs are positional, so they are built from the
  full lists first and a pair is dropped when either word is missing (instruments/weapons
  loses the pair containing "axe"). WEAT 3's name lists (34 European-American vs 32
  African-American names) have no pairing at all, so RIPA has no case for that query.
* MAC: wefe averages ``scipy`` cosine *distances* (1 − cos) over every (target word,
  attribute set) score, each score the mean over that set's words; wefe_same's
  ``mac(T, A1, A2)`` is the same mean of per-set means. With a single target set the two
  orders of averaging coincide, hence the (1, 2) subqueries. Equal.

Every value agrees to ~1e-15 relative (both sides are float64); the tolerance below is
rel 1e-9, which still leaves room for summation-order differences.

wefe 0.4.1 predates numpy 2: its RNSB module annotates return types with ``np.float_``,
which numpy 2 removed, so ``import wefe.metrics`` fails. The ``wefe`` fixture restores the
alias for the duration of the import only (see ``_import_wefe``).
"""

from __future__ import annotations

import importlib.util
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import numpy_float_alias

from wefe_same import load_queries
from wefe_same.metrics.ect import ect
from wefe_same.metrics.mac import mac
from wefe_same.metrics.ripa import ripa
from wefe_same.metrics.rnd import rnd
from wefe_same.metrics.weat import weat
from wefe_same.metrics.weat_es import weat_effect_size
from wefe_same.models import resolve_model

# wefe 0.4.1 is a dependency of wefe_same (it carries the word2vec-gnews-weat model), so the
# oracle always runs: a missing wefe fails here rather than skipping.
MODEL = "word2vec-gnews-weat"
REL = 1e-9
ABS = 1e-12  # for values that happen to be ~0

(WEAT_SET,) = load_queries("weat")
QUERIES = WEAT_SET.queries


def _import_wefe() -> SimpleNamespace:
    """Import wefe 0.4.1 under numpy 2.

    wefe 0.4.1 predates numpy 2: ``wefe/metrics/RNSB.py`` uses ``np.float_`` in type
    annotations, evaluated when the module is imported, and numpy 2 removed that alias.
    The shim only restores the removed alias (as ``np.float64``, what it always meant)
    while wefe is imported, then removes it again so no other code in this test session
    can come to rely on it; wefe does not use ``np.float_`` at run time.
    """
    with numpy_float_alias():
        from wefe.datasets import load_weat
        from wefe.metrics import ECT, MAC, RIPA, RND, WEAT
        from wefe.query import Query
        from wefe.word_embedding_model import WordEmbeddingModel
    return SimpleNamespace(WEAT=WEAT, RND=RND, MAC=MAC, ECT=ECT, RIPA=RIPA, Query=Query,
                           WordEmbeddingModel=WordEmbeddingModel, load_weat=load_weat)


def _wefe_dir() -> Path:
    # Found without importing wefe (which needs the shim above).
    return Path(importlib.util.find_spec("wefe").submodule_search_locations[0])


# ----------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """One query in wefe's layout: lists of word lists plus their names."""

    id: str
    targets: tuple[tuple[str, ...], ...]
    attributes: tuple[tuple[str, ...], ...]
    target_names: tuple[str, ...]
    attribute_names: tuple[str, ...]
    paired: bool = False  # targets are positional pairs (RIPA)


def _qid(query) -> str:
    return query.name.split(":")[0].replace(" ", "")  # "WEAT 1: ..." -> "WEAT1"


def _weat_cases() -> list[Case]:
    return [Case(_qid(q), tuple(tuple(s.words) for s in q.targets),
                 tuple(tuple(s.words) for s in q.attributes),
                 tuple(s.name for s in q.targets), tuple(s.name for s in q.attributes))
            for q in QUERIES]


def _cases_2_1(paired: bool) -> list[Case]:
    """Target pair x each attribute set. ``paired``: only target lists of equal length."""
    out = []
    for q in QUERIES:
        t1, t2 = q.targets
        if paired and len(t1.words) != len(t2.words):
            # RIPA needs aligned (x_i, y_i) pairs; lists of different length (WEAT 3's
            # 34 vs 32 names) have no such alignment, so RIPA has no case here.
            continue
        for a in q.attributes:
            out.append(Case(f"{_qid(q)}-{a.name}", (tuple(t1.words), tuple(t2.words)),
                            (tuple(a.words),), (t1.name, t2.name), (a.name,), paired=paired))
    return out


def _cases_1_2() -> list[Case]:
    return [Case(f"{_qid(q)}-{t.name}", (tuple(t.words),),
                 tuple(tuple(a.words) for a in q.attributes),
                 (t.name,), tuple(a.name for a in q.attributes))
            for q in QUERIES for t in q.targets]


# metric -> (cases, what wefe returns, what wefe_same returns that should equal it)
def _wefe_weat(w, q, m):
    return w.WEAT().run_query(q, m, return_effect_size=True, lost_vocabulary_threshold=0.0)


METRICS = {
    "weat": (
        _weat_cases(),
        lambda w, q, m: _wefe_weat(w, q, m)["weat"],
        lambda T, A: weat(*T, *A).value,
    ),
    "weat_es": (
        _weat_cases(),
        lambda w, q, m: _wefe_weat(w, q, m)["effect_size"],
        lambda T, A: weat_effect_size(*T, *A, ddof=0).value,
    ),
    # wefe_same's default ddof=1 differs from wefe's population std by sqrt(n/(n-1)).
    "weat_es_ddof1": (
        _weat_cases(),
        lambda w, q, m: _wefe_weat(w, q, m)["effect_size"],
        lambda T, A: weat_effect_size(*T, *A).value
        * math.sqrt((len(T[0]) + len(T[1])) / (len(T[0]) + len(T[1]) - 1)),
    ),
    # wefe averages over the attribute words; wefe_same sums (Garg et al. eq. 3).
    "rnd": (
        _cases_2_1(paired=False),
        lambda w, q, m: w.RND().run_query(q, m, lost_vocabulary_threshold=0.0)["result"],
        lambda T, A: rnd(*T, *A, normalize=False).value / len(A[0]),
    ),
    "ect": (
        _cases_2_1(paired=False),
        lambda w, q, m: w.ECT().run_query(q, m, lost_vocabulary_threshold=0.0)["result"],
        lambda T, A: ect(*T, *A).value,
    ),
    "ripa": (
        _cases_2_1(paired=True),
        lambda w, q, m: w.RIPA().run_query(q, m, lost_vocabulary_threshold=0.0)["result"],
        lambda T, A: ripa(*T, *A).value,
    ),
    "mac": (
        _cases_1_2(),
        lambda w, q, m: w.MAC().run_query(q, m, lost_vocabulary_threshold=0.0)["result"],
        lambda T, A: mac(*T, *A).value,
    ),
}

PARAMS = [pytest.param(name, case, id=f"{name}-{case.id}")
          for name, (cases, _, _) in METRICS.items() for case in cases]


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def wefe() -> SimpleNamespace:
    return _import_wefe()


@pytest.fixture(scope="module")
def unit_vectors() -> dict[str, np.ndarray]:
    """Every WEAT word the model knows -> its unit-length float64 vector."""
    words = sorted({w for q in QUERIES for s in (*q.targets, *q.attributes) for w in s.words})
    raw = resolve_model(MODEL).lookup(words)
    return {w: (v := np.asarray(raw[w], dtype=np.float64)) / np.linalg.norm(v) for w in words if w in raw}


@pytest.fixture(scope="module")
def wefe_model(wefe, unit_vectors):
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=len(next(iter(unit_vectors.values()))), count=0, dtype=np.float64)
    kv.add_vectors(list(unit_vectors), np.array(list(unit_vectors.values())))
    return wefe.WordEmbeddingModel(kv, "w2v-unit")


def _present(case: Case, vecs: dict[str, np.ndarray]) -> Case:
    """Drop words the model lacks, before either library sees the query (pairwise if paired)."""
    targets = case.targets
    if case.paired:
        pairs = [p for p in zip(*targets, strict=True) if all(w in vecs for w in p)]
        targets = tuple(zip(*pairs))
    else:
        targets = tuple(tuple(w for w in s if w in vecs) for s in targets)
    attributes = tuple(tuple(w for w in s if w in vecs) for s in case.attributes)
    for s in (*targets, *attributes):
        assert s and len(set(s)) == len(s), "wefe keys embeddings by word: sets must be non-empty, unique"
    return Case(case.id, targets, attributes, case.target_names, case.attribute_names, case.paired)


# ----------------------------------------------------------------------------- tests


@pytest.mark.parametrize(("metric", "case"), PARAMS)
def test_metric_matches_wefe(metric, case, wefe, wefe_model, unit_vectors):
    _, run_wefe, run_ours = METRICS[metric]
    c = _present(case, unit_vectors)
    query = wefe.Query(target_sets=[list(s) for s in c.targets],
                       attribute_sets=[list(s) for s in c.attributes],
                       target_sets_names=list(c.target_names),
                       attribute_sets_names=list(c.attribute_names))
    expected = float(run_wefe(wefe, query, wefe_model))
    ours = run_ours([np.array([unit_vectors[w] for w in s]) for s in c.targets],
                    [np.array([unit_vectors[w] for w in s]) for s in c.attributes])
    assert not math.isnan(expected), "wefe returned NaN: it lost a word"
    assert ours == pytest.approx(expected, rel=REL, abs=ABS)


def test_catalog_model_is_wefes_test_model():
    """``word2vec-gnews-weat`` gives exactly the raw vectors of wefe's test_model.kv."""
    from gensim.models import KeyedVectors

    kv = KeyedVectors.load(str(_wefe_dir() / "datasets" / "data" / "test_model.kv"))
    words = sorted({w for q in QUERIES for s in (*q.targets, *q.attributes) for w in s.words})
    ours = resolve_model(MODEL).lookup(words)
    assert set(ours) == {w for w in words if w in kv.key_to_index}
    assert set(words) - set(ours) == {"axe"}
    for w, v in ours.items():
        np.testing.assert_array_equal(np.asarray(v), kv[w].astype(np.float64))


def test_word_lists_are_wefes(wefe):
    """Every set of weat.toml is wefe's ``load_weat()`` list named by its ``wefe_key``, in order."""
    sets = tomllib.loads(Path(load_queries("weat")[0].path).read_text(encoding="utf-8"))["sets"]
    weat_lists = wefe.load_weat()
    used = {s.name for q in QUERIES for s in (*q.targets, *q.attributes)}
    assert used <= set(sets)
    for name in sorted(used):
        assert list(sets[name]["words"]) == list(weat_lists[sets[name]["wefe_key"]]), name
