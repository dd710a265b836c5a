"""Queries, templates and query files (seed 002 §3.1)."""

import tomllib

import pytest

from wefe_same import AtLeast, Query, QueryError, Template, WordSet, load_queries
from wefe_same.query.files import bundled_query_sets, load_query_file

WOMEN, MEN = WordSet("women", ["she", "woman"]), WordSet("men", ["he", "man"])
SCIENCE, ART = WordSet("science", ["physics"]), WordSet("art", ["poetry"])
SEED_QUERY = Query([WOMEN, MEN], [SCIENCE, ART])


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        # Seed 002 §3.1: template (2, 1) on ({women, men}, {science, art}) gives 2 subqueries.
        (Template(2, 1), ["women+men|science", "women+men|art"]),
        (Template(2, 2), ["women+men|science+art"]),
        (Template(1, 1), ["women|science", "women|art", "men|science", "men|art"]),
        (Template(1, 2), ["women|science+art", "men|science+art"]),
        (Template(AtLeast(2), 1), ["women+men|science", "women+men|art"]),
        (Template(1, AtLeast(1)), ["women|science+art", "men|science+art"]),
        (Template(3, 1), []),
        (Template(AtLeast(3), 1), []),
    ],
)
def test_subquery_counts_and_ids(template, expected):
    assert [q.id for q in SEED_QUERY.subqueries(template)] == expected


def test_three_targets_two_choose():
    third = WordSet("others", ["they"])
    q = Query([WOMEN, MEN, third], [SCIENCE])
    assert len(q.subqueries(Template(2, 1))) == 3
    assert [s.id for s in q.subqueries(Template(AtLeast(2), 1))] == ["women+men+others|science"]


def test_frozen_and_hashable():
    same = Query([WordSet("women", ["she", "woman"]), MEN], [SCIENCE, ART])
    assert hash(same) == hash(SEED_QUERY) and same == SEED_QUERY
    assert len({SEED_QUERY, same}) == 1
    with pytest.raises(AttributeError):
        SEED_QUERY.name = "x"  # type: ignore[misc]
    assert isinstance(WOMEN.words, tuple)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: WordSet("s", []), "set 's' has no words"),
        (lambda: WordSet("s", ["a", "a"]), "set 's': word 'a' appears twice"),
        (lambda: WordSet("s", ["a", ""]), "set 's': word '' is not a non-empty string"),
        (lambda: WordSet("s", "abc"), "must be a list of strings"),
        (lambda: Query([WOMEN, WOMEN], [SCIENCE]), "uses set 'women' twice"),
        (lambda: Query([], [SCIENCE]), "has no target sets"),
        (lambda: Template(0, 1), "The 'targets' parameter of Template must be"),
        (lambda: AtLeast(0), "The 'k' parameter of AtLeast"),
    ],
)
def test_bad_objects_name_the_culprit(build, message):
    with pytest.raises(QueryError, match=message.replace("(", r"\(").replace(")", r"\)")):
        build()


def test_bundled_sets_have_the_case_study_sizes_and_sources():
    sizes = {qs.name: len(qs.queries) for qs in load_queries(bundled_query_sets())}
    # WEFE case study (seed 002 §4): gender 7, ethnicity 9, religion 9; Caliskan WEAT 1-10.
    assert {k: sizes[k] for k in ("gender", "ethnicity", "religion", "weat")} == {
        "gender": 7, "ethnicity": 9, "religion": 9, "weat": 10}
    for qs in load_queries(bundled_query_sets()):
        for s in qs.sets:
            assert s.source and len(s.source) > 5, f"{qs.name}: set {s.name} has no source"
        assert all(len(q.targets) >= 1 and len(q.attributes) >= 1 for q in qs.queries)


def test_bundled_files_are_plain_toml_of_the_documented_shape():
    for name in bundled_query_sets():
        qs = load_queries(name)[0]
        doc = tomllib.loads(open(qs.path, encoding="utf-8").read())
        assert doc["meta"]["name"] == name
        assert set(doc) <= {"meta", "sets", "queries"}


def write(tmp_path, text, name="q.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """
[meta]
name = "mini"
[sets.male_terms]
words = ["he", "his"]
source = "test"
[sets.female_terms]
words = ["she", "her"]
[sets.career]
words = ["office"]
[[queries]]
name = "career"
targets = ["male_terms", "female_terms"]
attributes = ["career"]
"""


def test_load_query_file_roundtrip(tmp_path):
    qs = load_query_file(write(tmp_path, GOOD))
    assert qs.name == "mini" and len(qs.sha256) == 64
    (q,) = qs.queries
    assert q.id == "male_terms+female_terms|career" and q.name == "career"
    assert qs.word_set("male_terms").source == "test"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[meta\nname=1", "malformed TOML"),
        (GOOD.replace('attributes = ["career"]', 'attributes = ["carer"]'),
         "query 'career' names unknown set 'carer'"),
        (GOOD.replace('words = ["office"]', 'words = ["office", "office"]'),
         "set 'career': word 'office' appears twice"),
        (GOOD.replace('words = ["office"]', 'word = ["office"]'), "set 'career': unknown key 'word'"),
        (GOOD.replace('targets = ["male_terms", "female_terms"]\n', ''),
         "query 'career' needs a non-empty list 'targets'"),
        ("[meta]\nname='x'\n", "no \\[sets.NAME\\] tables"),
    ],
)
def test_bad_query_files_name_file_set_and_word(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(QueryError, match=message) as info:
        load_query_file(path)
    assert str(path) in str(info.value)


def test_unknown_bundled_name_lists_the_valid_ones():
    with pytest.raises(QueryError, match="unknown query set 'gendr'; valid query sets are: .*gender"):
        load_queries("gendr")
