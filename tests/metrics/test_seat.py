"""SEAT (May et al. 2019) against bias-bench's own code: ``seat_fixture.json`` is written by
``make_seat_fixture.py``, which runs McGill-NLP/bias-bench's ``SEATRunner`` and ``weat.py``
unedited on the hand-made files of ``seat_data/`` and the tiny random BERT."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from wefe_same import Encoding, Execution
from wefe_same.errors import QueryError
from wefe_same.metrics.seat import encode_hf_sentences, read_seat_file, seat_associations, seat_effect_size, seat_test

HERE = Path(__file__).parent
FIXTURE = json.loads((HERE / "seat_fixture.json").read_text(encoding="utf-8"))


def _vectors(test):
    e = FIXTURE["tests"][test]["encodings"]
    return [np.array(e[k]) for k in ("targ1", "targ2", "attr1", "attr2")]


def test_fixture_names_its_source_and_took_the_expected_branches():
    assert FIXTURE["repository"] == "McGill-NLP/bias-bench" and len(FIXTURE["commit"]) == 40
    assert FIXTURE["tests"]["tiny_exact"]["branch"] == "exact"
    assert FIXTURE["tests"]["tiny_sampled"]["branch"] == "sampled"


@pytest.mark.parametrize("test", ["tiny_exact", "tiny_sampled"])
def test_effect_size_equals_bias_bench(test):
    X, Y, A, B = _vectors(test)
    got = seat_test(X, Y, A, B, permutations=0)
    assert got.effect_size == pytest.approx(FIXTURE["tests"][test]["effect_size"], abs=1e-6)


@pytest.mark.parametrize("convention", ["tool", "bias-bench"])
def test_exact_p_value_equals_bias_bench(convention):
    X, Y, A, B = _vectors("tiny_exact")
    got = seat_test(X, Y, A, B, permutations=100_000, p_value=convention)
    assert got.method == "exact" and got.n_splits == math.comb(12, 6)
    assert got.p_value == pytest.approx(FIXTURE["tests"]["tiny_exact"]["p_value"], abs=1e-6)


@pytest.mark.parametrize("convention", ["tool", "bias-bench"])
def test_sampled_p_value_agrees_within_monte_carlo_error(convention):
    ref = FIXTURE["tests"]["tiny_sampled"]
    X, Y, A, B = _vectors("tiny_sampled")
    got = seat_test(X, Y, A, B, permutations=ref["n_samples"], p_value=convention, random_state=1)
    assert got.method == "sampled"
    # Two independent estimates of one p with N draws each: their difference has standard
    # error sqrt(2 p (1 − p) / N); 4 of them is a 6e-5 false-alarm rate.
    p = ref["p_value"]
    assert abs(got.p_value - p) <= 4 * math.sqrt(2 * p * (1 - p) / ref["n_samples"])


def test_bias_bench_convention_draws_one_fewer_split_and_counts_the_observed_one():
    # Observed split the most extreme of C(8, 4) = 70: never reached by chance often.
    s_x, s_y = np.eye(3)[[0] * 4], np.eye(3)[[1] * 4]
    X = s_x + np.linspace(0, 0.1, 4)[:, None] * np.eye(3)[2]
    Y = s_y + np.linspace(0, 0.1, 4)[:, None] * np.eye(3)[2]
    A, B = np.eye(3)[[0]], np.eye(3)[[1]]
    assert seat_test(X, Y, A, B, permutations=69, p_value="bias-bench").method == "sampled"
    exact = seat_test(X, Y, A, B, permutations=70, p_value="bias-bench")
    assert exact.method == "exact" and exact.p_value == pytest.approx(1 / 70)
    # tool's convention keeps its own threshold (exact up to EXACT_LIMIT splits)
    assert seat_test(X, Y, A, B, permutations=10).method == "exact"
    one = seat_test(X, Y, A, B, permutations=2, p_value="bias-bench", exact_limit=0)
    # (1 + k)/n with n = 2 "samples": the observed split and one draw
    assert one.n_splits == 2 and one.p_value in (0.5, 1.0)


def test_effect_size_formula_by_hand():
    s = np.array([0.3, 0.1, -0.2, -0.4])
    assert seat_effect_size(s, 2) == pytest.approx((0.2 - -0.3) / np.std(s, ddof=1))
    e = np.eye(2)
    assert seat_associations(e[[0]], e[[1]], e[[0]], e[[1]]).tolist() == [1.0, -1.0]


@pytest.mark.parametrize("test", ["tiny_exact", "tiny_sampled"])
def test_our_encoder_gives_bias_bench_sentence_vectors(test, tmp_path):
    import torch
    from make_seat_fixture import tiny_seat_bert
    from transformers import AutoModel, AutoTokenizer

    folder = tiny_seat_bert(tmp_path / "bert")
    model = AutoModel.from_pretrained(folder, dtype=torch.float64).eval()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    seat = read_seat_file(HERE / "seat_data" / f"{test}.jsonl")
    ref = FIXTURE["tests"][test]
    for key, seat_set, vectors in zip(("targ1", "targ2", "attr1", "attr2"), seat.sets(), _vectors(test)):
        assert [tokenizer.tokenize(t) for t in seat_set.examples] == ref["tokens"][key]
        np.testing.assert_allclose(encode_hf_sentences(model, tokenizer, seat_set.examples), vectors, atol=1e-10)


def test_reading_a_seat_file_and_its_errors(tmp_path):
    test = read_seat_file(HERE / "seat_data" / "tiny_exact.jsonl")
    assert test.name == "tiny_exact" and test.targ1.category == "Flowers" and len(test.targ2.examples) == 6
    lines = tmp_path / "lines.jsonl"
    lines.write_text('{"targ1": {}}\n{"targ2": {}}\n', encoding="utf-8")
    with pytest.raises(QueryError, match=r"lines.jsonl: not one JSON object.*json.load"):
        read_seat_file(lines)
    short = tmp_path / "short.jsonl"
    short.write_text(json.dumps({k: {"category": k, "examples": ["a", "b"][: 1 + (k != "targ2")]}
                                 for k in ("targ1", "targ2", "attr1", "attr2")}), encoding="utf-8")
    with pytest.raises(QueryError, match="short.jsonl: targ1 has 2 distinct examples and targ2 1"):
        read_seat_file(short)
    with pytest.raises(QueryError, match="lacks attr1, attr2"):
        (tmp_path / "m.jsonl").write_text('{"targ1": {"examples": ["a"]}, "targ2": {"examples": ["b"]}}')
        read_seat_file(tmp_path / "m.jsonl")


@pytest.fixture(scope="module")
def seat_bert(tmp_path_factory):
    from make_seat_fixture import tiny_seat_bert

    return tiny_seat_bert(tmp_path_factory.mktemp("seat") / "bert")


@pytest.mark.parametrize("test", ["tiny_exact", "tiny_sampled"])
def test_seat_command_on_a_seat_file_gives_bias_bench_numbers(test, seat_bert, tmp_path, capsys):
    from wefe_same.cli import main

    ref = FIXTURE["tests"][test]
    out = tmp_path / "seat.csv"
    assert main(["seat", "--models", f"hf:{seat_bert}", "--tests", str(HERE / "seat_data" / f"{test}.jsonl"),
                 "--permutations", str(ref["n_samples"]), "--seat-p-value", "bias-bench", "--seed", "3",
                 "--out", str(out)]) == 0
    assert "effect_size" in capsys.readouterr().out
    import pandas as pd

    (row,) = pd.read_csv(out).to_dict("records")
    assert row["effect_size"] == pytest.approx(ref["effect_size"], abs=1e-6)
    assert row["p_value_method"] == f"{ref['branch']} (bias-bench convention)"
    if ref["branch"] == "exact":
        assert row["p_value"] == pytest.approx(ref["p_value"], abs=1e-6)
    else:
        p = ref["p_value"]
        assert abs(row["p_value"] - p) <= 4 * math.sqrt(2 * p * (1 - p) / ref["n_samples"])


def test_templates_make_every_sentence_an_item_unless_words_are_asked_for(seat_bert, tmp_path):
    import torch
    from transformers import AutoModel, AutoTokenizer

    from wefe_same.models.encoders.contexts import seat_templates
    from wefe_same.run.seat import item_texts, score_seat

    words = tmp_path / "words.jsonl"
    words.write_text(json.dumps({"targ1": {"category": "f", "examples": ["rose", "daisy", "lily"]},
                                 "targ2": {"category": "i", "examples": ["ant", "wasp", "moth"]},
                                 "attr1": {"category": "p", "examples": ["joy", "love"]},
                                 "attr2": {"category": "u", "examples": ["filth", "crash"]}}), encoding="utf-8")
    terms = seat_templates()["terms"]
    sets = item_texts(read_seat_file(words), "sentences", terms, seat_templates()["names"])
    assert len(sets[0]) == 3 * len(terms) and sets[0][0] == terms[0].replace("{a}", "a").replace("{word}", "rose")
    model = AutoModel.from_pretrained(seat_bert, dtype=torch.float64).eval()
    tokenizer = AutoTokenizer.from_pretrained(seat_bert)
    X, Y, A, B = (encode_hf_sentences(model, tokenizer, s) for s in sets)
    oracle = seat_test(X, Y, A, B, permutations=1000, random_state=0)  # the encoder checked against bias-bench
    (sent,) = score_seat([f"hf:{seat_bert}"], [words], templates="seat", permutations=1000).to_dict("records")
    assert sent["n_target"] == 3 * len(terms) and sent["effect_size"] == pytest.approx(oracle.effect_size, abs=1e-6)
    assert sent["p_value"] == pytest.approx(oracle.p_value, abs=1e-12) and oracle.method == "sampled"
    # "words": each word one item, the mean of its template vectors (rank --templates seat)
    def raw(text):  # the pooled vector before unit length: rank's encoders average these
        with torch.no_grad():
            return model(**tokenizer(text, return_tensors="pt"))["last_hidden_state"].mean(dim=1)[0].numpy()

    per_word = [np.vstack([np.mean([raw(t) for t in s[i * len(terms):(i + 1) * len(terms)]], axis=0)
                           for i in range(len(s) // len(terms))]) for s in sets]
    word_oracle = seat_test(*per_word, permutations=1000)
    (word,) = score_seat([f"hf:{seat_bert}"], [words], templates="seat", items="words",
                         permutations=1000).to_dict("records")
    assert word["n_target"] == 3 and word["effect_size"] == pytest.approx(word_oracle.effect_size, abs=1e-6)
    assert abs(word["effect_size"] - sent["effect_size"]) > 1e-3  # other numbers, as the issue says


def test_run_module_constants_agree_with_the_maths():
    from wefe_same.metrics import seat
    from wefe_same.run import seat as run_seat

    assert run_seat.P_VALUES == seat.P_VALUE_CONVENTIONS and run_seat.SAMPLES == seat.BIAS_BENCH_SAMPLES
    from wefe_same.models.specs import TEMPLATE_ITEMS
    from wefe_same.options.choices import TEMPLATE_ITEMS as CLI_TEMPLATE_ITEMS

    assert CLI_TEMPLATE_ITEMS == TEMPLATE_ITEMS == run_seat.SEAT_ITEMS


def test_a_static_model_is_refused_naming_the_item(tmp_path):
    from conftest import GENDER_WORDS, write_glove

    from wefe_same.run.seat import score_seat

    write_glove(tmp_path / "a.txt", GENDER_WORDS, np.random.default_rng(0).normal(size=(len(GENDER_WORDS), 4)))
    with pytest.raises(QueryError, match=r"tiny_exact: model a has no vector for 22 item\(s\), first 'He is an ant.'"):
        score_seat([str(tmp_path / "a.txt")], [HERE / "seat_data" / "tiny_exact.jsonl"])


def test_the_api_function_takes_one_file_and_one_model(seat_bert):
    from wefe_same import seat

    table = seat(f"hf:{seat_bert}", HERE / "seat_data" / "tiny_exact.jsonl", p_value="bias-bench")
    assert list(table["test"]) == ["tiny_exact"]
    assert table["effect_size"][0] == pytest.approx(FIXTURE["tests"]["tiny_exact"]["effect_size"], abs=1e-6)
    assert table["p_value"][0] == pytest.approx(FIXTURE["tests"]["tiny_exact"]["p_value"], abs=1e-6)


QUERY = """[meta]
name = "ti"
[sets.flowers]
words = ["rose", "daisy", "lily"]
[sets.insects]
words = ["ant", "wasp", "moth"]
[sets.pleasant]
words = ["joy", "love"]
[sets.unpleasant]
words = ["filth", "Crash"]
[[queries]]
name = "t"
targets = ["flowers", "insects"]
attributes = ["pleasant", "unpleasant"]
"""


def _rank_one(bert, tmp_path, **options):
    from wefe_same import rank

    (tmp_path / "q.toml").write_text(QUERY, encoding="utf-8")
    return rank(models=[f"hf:{bert}"], queries=[str(tmp_path / "q.toml")], metrics=["WEAT", "WEAT-ES"],
                lipstick=False, permutations=10_000, **options, execution=Execution(cache=False))


def test_rank_in_templates_makes_every_sentence_an_item_as_seat_does(seat_bert, tmp_path):
    """rank --templates: WEAT-ES and WEAT's exact p-value over the sentences are SEAT's (the
    maths and encoder checked against bias-bench above); --template-items words averages."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from wefe_same.models.encoders.contexts import template_texts

    templates = ["This is {a} {word}.", "{word} is here."]  # 3 words x 2: C(12, 6) = 924 splits, exact
    model = AutoModel.from_pretrained(seat_bert, dtype=torch.float64).eval()
    tokenizer = AutoTokenizer.from_pretrained(seat_bert)
    sets = [[text for w in words for text, _ in template_texts(w, templates)]
            for words in (["rose", "daisy", "lily"], ["ant", "wasp", "moth"], ["joy", "love"], ["filth", "Crash"])]
    oracle = seat_test(*(encode_hf_sentences(model, tokenizer, s) for s in sets), permutations=10_000)
    assert oracle.method == "exact" and oracle.n_splits == 924
    got = _rank_one(seat_bert, tmp_path, encoding=Encoding(templates=templates))
    (name,) = got.scores["WEAT-ES"].index
    assert name == "bert[templates=This is {a} {word}. | {word} is here.]"
    # 1e-6, as score_seat above: the tool's encoders give float32 rows, the oracle float64 ones
    assert got.scores["WEAT-ES"].iloc[0, 0] == pytest.approx(oracle.effect_size, abs=1e-6)
    assert got.details.set_index("metric").loc["WEAT", "p_value"] == pytest.approx(oracle.p_value, abs=1e-12)
    rows = got.word_bias[got.word_bias["metric"] == "WEAT"]
    assert sorted(rows["word"].astype(str)) == sorted(sets[0] + sets[1])  # one row per sentence
    assert got.details.set_index("metric").loc["WEAT", "words_found"] == 10  # still counted in words
    words = _rank_one(seat_bert, tmp_path, encoding=Encoding(templates=templates, template_items="words"))
    assert words.scores["WEAT-ES"].index[0] == name[:-1] + ",template-items=words]"
    assert sorted(words.word_bias.loc[words.word_bias["metric"] == "WEAT", "word"].astype(str)) == sorted(
        ["rose", "daisy", "lily", "ant", "wasp", "moth"])
    assert abs(words.scores["WEAT-ES"].iloc[0, 0] - oracle.effect_size) > 1e-3  # other numbers


def test_an_item_table_survives_the_cache_pickling_and_shared_words(seat_bert, tmp_path):
    import pickle

    from wefe_same.models.catalog import resolve_model
    from wefe_same.models.encoders.contexts import template_options
    from wefe_same.models.specs import LoadOptions
    from wefe_same.run.cache.store import ModelCache
    from wefe_same.scoring.matrices import restrict
    from wefe_same.scoring.vectors import build_table

    source = resolve_model(f"hf:{seat_bert},pooling=word-mean", LoadOptions(**template_options("seat")))
    table = build_table(source, ["rose", "Emily", "ant"])
    assert table.items is not None and len(table.words) == 6 + 8 + 6  # terms, names, terms templates
    assert table.rows(["Emily"]).tolist() == table.items["Emily"].tolist() and len(table.items["Emily"]) == 8
    assert [table.words[i] for i in table.items["rose"]][:2] == ["This is a rose.", "That is a rose."]
    cache = ModelCache(tmp_path / "cache")
    cache.put_vectors("a" * 64, table, {"kind": "hf"})
    again, _ = cache.get_vectors("a" * 64)
    copied = pickle.loads(pickle.dumps(table))
    for other in (again, copied):
        assert other.fingerprint() == table.fingerprint() and other.keys == ("Emily", "ant", "rose")
        np.testing.assert_array_equal(other.unit_vectors(["rose", "ant"]), table.unit_vectors(["rose", "ant"]))
    kept = restrict(table, {"rose", "ant"})
    assert kept.keys == ("ant", "rose") and len(kept.words) == 12 and "Emily" not in kept
    np.testing.assert_array_equal(kept.raw_vectors(["rose"]), table.raw_vectors(["rose"]))
    assert {lk.word: lk.status for lk in kept.lookups}["Emily"] == "not shared"
