"""Word-level resampling: the word bootstrap, random halves of the neutral words
(Schröder et al. 2021, §5.3.1), restriction to shared words, and aligned sets in query files."""

import os

import numpy as np
import pandas as pd
import pytest

from wefe_same import Query, QueryError, WordSet
from wefe_same.analysis.intervals import summarize_draws
from wefe_same.analysis.robustness import robustness_table
from wefe_same.metrics.registry import METRICS
from wefe_same.metrics.same import same
from wefe_same.query.files import load_queries, load_query_file
from wefe_same.query.resample import (
    NEUTRAL_ROLE_BY_METRIC,
    aligned_groups,
    close_tuples,
    half_size,
    halves_draws,
    neutral_role,
    word_bootstrap_draws,
)

MEN = WordSet("men", ["he", "him", "man", "boy", "father", "son"], aligned=True)
WOMEN = WordSet("women", ["she", "her", "woman", "girl", "mother", "daughter"], aligned=True)
JOBS = WordSet("jobs", ["doctor", "nurse", "pilot", "clerk", "judge", "cook", "maid"])
ARTS = WordSet("arts", ["poetry", "dance", "drama"])
QUERY = Query([MEN, WOMEN], [JOBS, ARTS], name="toy")


def positions(s: WordSet, words) -> list[int]:
    return [s.words.index(w) for w in words]


# ---------------------------------------------------------------- word bootstrap

def test_bootstrap_keeps_sizes_and_draws_aligned_tuples_whole():
    draws = word_bootstrap_draws([QUERY], 200, random_state=3)
    assert len(draws) == 200
    repeats = 0
    for b in range(len(draws)):
        words = draws[b][None]
        for s in (MEN, WOMEN, JOBS, ARTS):
            assert len(words[s]) == len(s)
            assert set(words[s]) <= set(s.words)
        # tuple i of the aligned pair stays a pair: the same positions in both sets
        assert positions(MEN, words[MEN]) == positions(WOMEN, words[WOMEN])
        repeats += len(set(words[JOBS])) < len(JOBS)
    # with replacement: duplicates are kept (7 words, P(no repeat) = 7!/7^7 ≈ 0.6 %)
    assert repeats > 190
    # the unaligned sets are drawn independently of the pair
    assert any(positions(JOBS, draws[b][None][JOBS])[:6] != positions(MEN, draws[b][None][MEN])
               for b in range(20))


def test_bootstrap_is_seeded_and_independent_of_other_queries():
    a = word_bootstrap_draws([QUERY], 5, random_state=1)
    b = word_bootstrap_draws([QUERY], 50, random_state=1)
    other = Query([WordSet("x", ["p", "q"]), WordSet("y", ["r", "s"])], [JOBS])
    c = word_bootstrap_draws([other, QUERY], 5, random_state=1)
    d = word_bootstrap_draws([QUERY], 5, random_state=2)
    for k in range(5):
        for s in (MEN, JOBS):
            assert a[k][None][s] == b[k][None][s] == c[k][None][s]
    assert any(a[k][None][JOBS] != d[k][None][JOBS] for k in range(5))
    for k in range(5):
        np.testing.assert_array_equal(a.positions(MEN, k), a.positions(WOMEN, k))
        assert a.positions(JOBS, k).shape == (len(JOBS),)


def test_aligned_groups_need_every_target_aligned_and_equal_lengths():
    c = WordSet("c", ["c1", "c2", "c3", "c4", "c5", "c6"], aligned=True)
    short = WordSet("short", ["s1", "s2"], aligned=True)
    plain = WordSet("plain", list("abcdef"))
    groups = aligned_groups([Query([MEN, WOMEN], [JOBS]), Query([WOMEN, c], [JOBS]),
                             Query([MEN, short], [JOBS]), Query([c, plain], [JOBS])])
    assert [{s.name for s in g} for g in groups] == [{"men", "women", "c"}]
    draws = word_bootstrap_draws([Query([MEN, WOMEN], [JOBS]), Query([WOMEN, c], [JOBS])], 10, random_state=0)
    for b in range(10):
        w = draws[b][None]
        assert positions(MEN, w[MEN]) == positions(WOMEN, w[WOMEN]) == positions(c, w[c])


def test_draws_look_up_by_set_and_refuse_ambiguous_names():
    other_jobs = WordSet("jobs", ["baker", "smith"])
    draws = word_bootstrap_draws([QUERY, Query([WordSet("g", ["x"]), WordSet("h", ["y"])], [other_jobs])], 3, 0)
    words = draws[0][None]
    assert words["arts"] == words[ARTS]  # a unique name works (what prepare() looks up)
    assert set(words[other_jobs]) <= {"baker", "smith"}
    with pytest.raises(QueryError, match="set name 'jobs' names 2 different sets"):
        words["jobs"]
    assert words.get("nosuchset") is None
    with pytest.raises(IndexError):
        draws[3]


# ---------------------------------------------------------------- halves (Schröder et al. 2021, §5.3.1)

def test_neutral_role_of_every_metric():
    roles = {name: neutral_role(spec) for name, spec in METRICS.items()}
    assert set(roles.values()) <= {"targets", "attributes"}
    # WEAT's neutral words are its targets X, Y; SAME and Direct Bias: the attribute set
    assert roles["WEAT"] == roles["WEAT-ES"] == "targets"
    assert roles["SAME"] == roles["DirectBias"] == roles["SAME-skew"] == roles["RND"] == "attributes"
    assert set(NEUTRAL_ROLE_BY_METRIC) <= set(METRICS)


def test_halves_take_half_of_the_neutral_role_only():
    weat, same_spec = METRICS["WEAT"], METRICS["SAME"]
    subs = [(weat, QUERY.subqueries(weat.template)), (same_spec, QUERY.subqueries(same_spec.template))]
    draws = halves_draws(subs, 30, random_state=0)
    for b in range(30):
        d = draws[b]
        w_weat, w_same = d["WEAT"], d["SAME"]
        # WEAT: the targets are halved (tuples whole), the attribute sets keep their words
        assert len(w_weat[MEN]) == half_size(6) == 3
        assert positions(MEN, w_weat[MEN]) == positions(WOMEN, w_weat[WOMEN])
        assert JOBS not in w_weat and w_weat.get(JOBS.name) is None
        # SAME: the attribute sets (neutral words) are halved, each its own half
        assert len(w_same[JOBS]) == 4 and len(w_same[ARTS]) == 2 and MEN not in w_same
        for words in (w_weat[MEN], w_same[JOBS], w_same[ARTS]):
            assert len(set(words)) == len(words)  # without replacement


def test_robustness_table_on_constructed_halves():
    point = pd.DataFrame({"WEAT": [1.0, 0.0], "SAME": [0.5, 0.2]}, index=["m1", "m2"])
    halves = np.array([[[1.5, 0.4], [0.1, 0.2]], [[0.5, np.nan], [-0.3, 0.3]]])
    table = robustness_table(point, halves).set_index(["model", "metric"])
    assert table.loc[("m1", "WEAT"), "mean_abs_change"] == pytest.approx(0.5)
    assert table.loc[("m1", "WEAT"), "relative"] == pytest.approx(0.5)
    assert table.loc[("m2", "WEAT"), "mean_abs_change"] == pytest.approx(0.2)
    assert np.isnan(table.loc[("m2", "WEAT"), "relative"])  # |b(W)| = 0: no relative change
    assert table.loc[("m1", "SAME"), "halves"] == 1
    assert table.loc[("m1", "SAME"), "mean_abs_change"] == pytest.approx(0.1)
    assert table.loc[("m2", "SAME"), "mean_abs_change"] == pytest.approx(0.05)
    with pytest.raises(Exception, match=r"halves must have shape \(H, 2 models, 2 metrics\)"):
        robustness_table(point, halves[:, :1])


# ---------------------------------------------------------------- intervals from a word bootstrap

def _model(bias: float, words, rng, dim=16):
    """Unit vectors: group words along ±e0, neutral words leaning by ``bias`` towards e0."""
    e0 = np.eye(dim)[0]
    vecs = {}
    for w in words:
        if w.startswith("m_"):
            v = 2 * e0 + 0.5 * rng.normal(size=dim)
        elif w.startswith("f_"):
            v = -2 * e0 + 0.5 * rng.normal(size=dim)
        else:
            v = bias * e0 * rng.uniform(0, 2) + rng.normal(size=dim) / np.sqrt(dim)
        vecs[w] = v / np.linalg.norm(v)
    return vecs


def _same_of(vecs, query, words_of=None):
    get = (lambda s: words_of[s]) if words_of is not None else (lambda s: s.words)
    T = np.array([vecs[w] for w in get(query.attributes[0])])
    groups = [np.array([vecs[w] for w in get(s)]) for s in query.targets]
    return same(T, *groups).value


def _word_bootstrap(n_neutral: int, draws: int = 150):
    men = WordSet("m", [f"m_{i}" for i in range(8)], aligned=True)
    women = WordSet("f", [f"f_{i}" for i in range(8)], aligned=True)
    neutral = WordSet("w", [f"w_{i}" for i in range(n_neutral)])
    query = Query([men, women], [neutral])
    words = [*men.words, *women.words, *neutral.words]
    models = {f"bias{b}": _model(b, words, np.random.default_rng(i)) for i, b in enumerate((0.2, 0.5, 1.0))}
    observed = pd.DataFrame({"SAME": [_same_of(v, query) for v in models.values()]}, index=list(models))
    rankings = observed.rank(method="min").astype("Int64")
    resampled = word_bootstrap_draws([query], draws, random_state=7)
    values = np.array([[[_same_of(v, query, resampled[b][None])] for v in models.values()]
                       for b in range(draws)])
    return summarize_draws(values, [METRICS["SAME"]], observed, rankings)


def test_word_bootstrap_intervals_contain_the_estimate_and_shrink_as_sets_grow():
    widths = []
    for n in (10, 40, 160):
        ci, corr, stability = _word_bootstrap(n)
        assert ((ci["ci_low"] <= ci["value"]) & (ci["value"] <= ci["ci_high"])).all()
        assert ((stability["rank_ci_low"] <= stability["rank"].astype(float))
                & (stability["rank"].astype(float) <= stability["rank_ci_high"])).all()
        widths.append(float((ci["ci_high"] - ci["ci_low"]).mean()))
    assert widths[0] > widths[1] > widths[2] > 0
    # a mean over n words: the width falls roughly as 1/sqrt(n) (16x the words → ~1/4)
    assert widths[2] / widths[0] < 0.5
    # with many words the clearly ordered models keep their ranks
    assert (stability["share_same_rank"] > 0.9).all()


# ---------------------------------------------------------------- shared words

def test_close_tuples_drops_a_tuple_of_the_run_group_whole():
    c = WordSet("c", ["c1", "c2", "c3", "c4", "c5", "c6"], aligned=True)
    other = Query([WOMEN, c], [JOBS])
    groups = aligned_groups([QUERY, other])
    # c2 is tuple 1 of the group men-women-c: "him" and "her" go with it
    vocab = set(QUERY.words) | set(c.words)
    assert close_tuples(vocab - {"c2"}, groups) == frozenset(vocab - {"c2", "him", "her"})


# ---------------------------------------------------------------- aligned sets in WordSet and files

@pytest.mark.parametrize("words", [{"a", "b"}, frozenset({"a"}), {"a": 1, "b": 2}, {"a": 1}.keys()])
def test_wordset_refuses_unordered_collections(words):
    with pytest.raises(QueryError, match="set 'x': words must be an ordered list of strings"):
        WordSet("x", words)


def test_wordset_aligned_must_be_bool():
    with pytest.raises(QueryError, match="'aligned' parameter of WordSet must be True or False"):
        WordSet("x", ["a"], aligned="yes")


def test_query_file_reads_aligned(tmp_path):
    path = tmp_path / "q.toml"
    path.write_text('[sets.a]\nwords = ["x", "y"]\naligned = true\n[sets.b]\nwords = ["u", "v"]\naligned = true\n'
                    '[sets.n]\nwords = ["w"]\n[[queries]]\ntargets = ["a", "b"]\nattributes = ["n"]\n')
    qs = load_query_file(path)
    assert [s.aligned for s in qs.sets] == [True, True, False]
    bad = tmp_path / "bad.toml"
    text = '[sets.a]\nwords = ["x"]\naligned = "yes"\n'
    bad.write_text(text)
    before = os.stat(bad).st_mtime_ns
    with pytest.raises(QueryError, match=r"bad\.toml: set 'a': 'aligned' must be true or false, got 'yes'"):
        load_query_file(bad)
    assert bad.read_text() == text and os.stat(bad).st_mtime_ns == before


def test_bundled_aligned_sets():
    sets = {qs.name: {s.name: s for s in qs.sets} for qs in load_queries(["gender", "religion", "ethnicity"])}
    gender, religion = sets["gender"], sets["religion"]
    assert gender["male_terms"].aligned and gender["female_terms"].aligned
    pairs = dict(zip(gender["male_terms"].words, gender["female_terms"].words))
    assert pairs["he"] == "she" and pairs["uncle"] == "aunt" and pairs["nephews"] == "nieces"
    rel = [religion[n] for n in ("christianity_terms", "islam_terms", "judaism_terms")]
    assert all(s.aligned for s in rel)
    assert list(zip(*(s.words for s in rel)))[3] == ("bible", "quran", "torah")
    # surnames are lists of the same length but not pairs: never aligned
    assert not any(s.aligned for s in sets["ethnicity"].values())
