"""What text a word is encoded in: the SEAT templates, a templates file, and context
sentences from a corpus (CEAT-style), checked against transformers run by hand on the tiny
models of :mod:`tiny_transformers` (tests/tiny_transformers.py, the `tiny` fixture)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from test_poolings import ATOL, Oracle

from wefe_same import ModelError
from wefe_same.models import LoadOptions, resolve_model
from wefe_same.models.encoders.contexts import fill_spans, load_template_set, seat_templates, template_options

SENTENCES = [
    "The nurse is here.",
    "A doctor and a nurse met.",
    "Nobody went to the nursery.",          # not "nurse": a longer word
    "NURSE! called the man.",               # case is ignored
    "They ate ice cream at noon.",          # a multi-word term
    "The ice is cold and cream is white.",  # its words, not in order: not the term
    "The doctor is an engineer.",
]


# module-scoped encoder fixtures read and hash into one temporary cache
pytestmark = pytest.mark.usefixtures("module_encoder_cache")


@pytest.fixture(scope="module")
def bert(tiny):
    return tiny["bert"]


@pytest.fixture(scope="module")
def oracle(bert):
    return Oracle(bert)


def test_seat_templates_are_bundled_with_their_source():
    seat = seat_templates()
    # NAME_TEMPLATES and SINGULAR_NOUN_TEMPLATES of sent-bias's scripts/generate_basic_contexts.py
    # (May et al. 2019; commit e3559fb), with {term} → {word} and {article} → {a}
    assert seat["names"] == ("This is {word}.", "That is {word}.", "There is {word}.", "Here is {word}.",
                             "{word} is here.", "{word} is there.", "{word} is a person.",
                             "The person's name is {word}.")
    assert seat["terms"] == ("This is {a} {word}.", "That is {a} {word}.", "There is {a} {word}.",
                             "Here is {a} {word}.", "The {word} is here.", "The {word} is there.")
    assert all("{word}" in t for lst in seat.values() for t in lst)
    assert fill_spans("This is {a} {word}.", "engineer")[0] == "This is an engineer."


def test_seat_gives_names_the_name_templates_and_terms_the_term_templates(bert, oracle):
    source = resolve_model(f"hf:{bert}", LoadOptions(**template_options("seat")))
    assert source.name == "bert[templates=seat]"
    got = source.lookup(["Emily", "nurse", "engineer"])
    seat = seat_templates()
    for word, templates in [("Emily", seat["names"]), ("nurse", seat["terms"]), ("engineer", seat["terms"])]:
        texts = [fill_spans(t, word) for t in templates]
        expected = np.mean([oracle.vector(text, spans, "mean", "-1") for text, spans in texts], axis=0)
        np.testing.assert_allclose(got[word], expected, atol=ATOL, rtol=0)
    forced = resolve_model(f"hf:{bert}", LoadOptions(**template_options("seat-terms")))
    assert forced.name == "bert[templates=seat-terms]"
    assert not np.allclose(forced.lookup(["Emily"])["Emily"], got["Emily"])


def test_a_templates_file_equals_the_same_templates_given_one_by_one(bert, tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("# my templates\nThis is {a} {word}.\n\n{word} is here.\n", encoding="utf-8")
    from_file = resolve_model(f"hf:{bert},pooling=word-mean", LoadOptions(**template_options(str(path))))
    given = resolve_model(f"hf:{bert},pooling=word-mean",
                          LoadOptions(templates=("This is {a} {word}.", "{word} is here.")))
    assert from_file.name == "bert[pooling=word-mean,templates=mine.txt]"
    np.testing.assert_array_equal(from_file.lookup(["ice cream"])["ice cream"], given.lookup(["ice cream"])["ice cream"])


@pytest.mark.parametrize("content, fragment", [
    ("This is a word.\n", "template 1 ('This is a word.') has no {word} slot"),
    ("", "holds no template"),
    ("A {word}.\nA {word}.\n", "template 'A {word}.' is given twice"),
])
def test_bad_template_files_are_one_line_errors(tmp_path, content, fragment):
    path = tmp_path / "t.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ModelError, match="^templates file .*" + fragment.replace("(", r"\(").replace(")", r"\)")
                       .replace("{", r"\{").replace("}", r"\}").replace(".", r"\.")):
        load_template_set(str(path))
    with pytest.raises(ModelError, match="neither seat, seat-names, seat-terms nor a readable file"):
        load_template_set(str(tmp_path / "missing.txt"))


def test_contexts_give_the_mean_over_the_sentences_that_hold_the_word(bert, oracle, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    source = resolve_model(f"hf:{bert}", LoadOptions(contexts=str(corpus), contexts_per_word=10))
    assert source.settings.pooling == "word-mean"  # the default in context
    assert source.name == "bert[contexts=corpus.txt:10]"  # word-mean is the default: not shown
    got = source.lookup(["nurse", "ice cream", "doctor", "zebra"])
    assert sorted(got) == ["doctor", "ice cream", "nurse"]  # zebra: in no sentence, missing
    expected_sentences = {"nurse": [0, 1, 3], "ice cream": [4], "doctor": [1, 6]}
    for word, numbers in expected_sentences.items():
        vectors = []
        for n in numbers:
            text = SENTENCES[n]
            start = text.lower().index(word)
            vectors.append(oracle.vector(text, [(start, start + len(word))], "word-mean", "-1"))
        np.testing.assert_allclose(got[word], np.mean(vectors, axis=0), atol=ATOL, rtol=0, err_msg=word)
    described = source.describe()
    assert json.loads(described["context_counts"]) == {"doctor": 2, "ice cream": 1, "nurse": 3, "zebra": 0}
    assert described["words_without_context"] == "1"
    # The same sentences as JSON lines give the same vectors.
    jsonl = tmp_path / "corpus.jsonl"
    jsonl.write_text("\n".join(json.dumps({"text": s}) for s in SENTENCES), encoding="utf-8")
    again = resolve_model(f"hf:{bert}", LoadOptions(contexts=str(jsonl), contexts_per_word=10)).lookup(["nurse"])
    np.testing.assert_allclose(again["nurse"], got["nurse"], atol=1e-6)


def test_contexts_are_drawn_with_the_seed_and_the_word(bert, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(f"Sentence {i} has a nurse." for i in range(30)), encoding="utf-8")

    def texts(seed, words=("nurse",)):
        source = resolve_model(f"hf:{bert}", LoadOptions(contexts=str(corpus), contexts_per_word=4, seed=seed))
        return source.texts(list(words))["nurse"]

    first = texts(0)
    assert len(first) == 4 and first == texts(0) == texts(0, ("nurse", "sentence"))
    assert texts(1) != first
    assert [t for t, _ in first] == sorted((t for t, _ in first), key=lambda t: int(t.split()[1]))  # file order


def test_bad_contexts_files_are_one_line_errors(tmp_path):
    from wefe_same.models.encoders.contexts import read_sentences

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine"}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(ModelError, match=r"^contexts file .*bad.jsonl, line 2: neither a string nor an object"):
        read_sentences(bad)
    with pytest.raises(ModelError, match="not a regular file"):
        read_sentences(tmp_path)


def test_rank_with_contexts_and_seat_from_the_command_line(bert, tmp_path, capsys):
    from conftest import MINI_QUERY

    from wefe_same.cli import main

    query = tmp_path / "mini.toml"
    query.write_text(MINI_QUERY, encoding="utf-8")
    corpus = tmp_path / "c.txt"
    corpus.write_text("He is a man.\nShe is a woman.\nThe man is a doctor.\nThe woman is an engineer.\n"
                      "A nurse and a teacher.\n", encoding="utf-8")
    out = tmp_path / "res"
    code = main(["rank", "--models", f"hf:{bert}", "--queries", str(query), "--metrics", "WEAT", "SAME",
                 "--permutations", "0", "--contexts", str(corpus), "--out", str(out), "--no-cache",
                 "--formats", "svg"])
    assert code == 0, capsys.readouterr().err
    manifest = json.loads((out / "manifest.json").read_text())
    (model,) = manifest["models"]
    assert json.loads(model["context_counts"])["man"] == 2
    assert main(["rank", "--models", f"hf:{bert}", "--queries", str(query), "--templates", "seat",
                 "--template", "A {word}.", "--out", str(tmp_path / "x")]) == 2
    assert "--template and --templates exclude each other" in capsys.readouterr().err
    assert main(["rank", "--models", f"hf:{bert}", "--queries", str(query), "--templates", "seet",
                 "--out", str(tmp_path / "x")]) == 2
    assert "neither seat, seat-names, seat-terms nor a readable file" in capsys.readouterr().err


@pytest.mark.parametrize("what", ["contexts", "templates"])
def test_a_fifo_as_contexts_or_templates_file_is_refused_at_once(tmp_path, what):
    from conftest import no_hang

    from wefe_same.models.encoders.contexts import read_sentences

    fifo = tmp_path / f"{what}.txt"
    os.mkfifo(fifo)
    with no_hang(10), pytest.raises(ModelError, match=f"{what} file is a FIFO .*not a regular file"):
        read_sentences(fifo) if what == "contexts" else template_options(str(fifo))
