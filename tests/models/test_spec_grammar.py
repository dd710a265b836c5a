"""One grammar for model specs (issue 27): ``NAME=``, base, ``+variant[options]``, globs.

Brackets are variant options and never a glob; a ``[`` in a path is itself; the same
parser serves ``rank``, ``rank()``, models files, ``export`` and ``load_model``.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import GENDER_WORDS, MINI_QUERY, write_glove
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wefe_same import Execution, load_model, rank
from wefe_same.cli import main
from wefe_same.errors import ModelError
from wefe_same.models.debias.methods import debias_methods
from wefe_same.models.debias.registry import suffixes
from wefe_same.models.specs import ModelSpec, Variant, parse_spec
from wefe_same.run.zoo import expand_globs, expand_spec, load_models_file

HSR30 = "glove-6b-50d+hsr-debias[alpha=30]"


VARIANT_SUFFIXES = suffixes()


def test_every_debiasing_method_is_in_the_grammar():
    assert set(VARIANT_SUFFIXES) == set(debias_methods()) and len(VARIANT_SUFFIXES) == 6


@pytest.mark.parametrize(("text", "name", "base", "variants"), [
    ("glove-6b-50d", "", "glove-6b-50d", ()),
    (HSR30, "", "glove-6b-50d", (Variant("+hsr-debias", "alpha=30"),)),
    ("m=g+hsr-debias[alpha=1]+hard-debias", "m", "g",
     (Variant("+hsr-debias", "alpha=1"), Variant("+hard-debias"))),
    ("glove:d/m[1].txt", "", "glove:d/m[1].txt", ()),  # a bracket in a path is a character
    ("glove:/d/a=b.txt", "", "glove:/d/a=b.txt", ()),
    ("./a=b.txt", "", "./a=b.txt", ()),  # the escape of a file name holding "="
    ("glove-6b-50d+hard-debias=word2vec-gnews-weat", "glove-6b-50d+hard-debias", "word2vec-gnews-weat", ()),
    ("c+hard-debias.txt", "", "c+hard-debias.txt", ()),
    ("g+double-hard-debias[]", "", "g", (Variant("+double-hard-debias", ""),)),
])
def test_specs_split_by_the_grammar(text, name, base, variants):
    spec = parse_spec(text)
    assert (spec.name, spec.base, spec.variants) == (name, base, variants)
    assert str(spec) == text


@pytest.mark.parametrize(("text", "fragment"), [
    ("+hard-debias", "no model before the variant +hard-debias"),
    ("g+hsr-debias[alpha=3", "need a closing ']'"),
    ("=glove-6b-50d", "the name before '=' is empty"),
    ("m=", "no model before the end"),
])
def test_malformed_specs_are_one_line_model_errors(text, fragment):
    with pytest.raises(ModelError, match=fragment.replace("[", r"\[").replace("+", r"\+")) as err:
        parse_spec(text)
    assert "\n" not in str(err.value)


NAME = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="=:/\\["), min_size=1, max_size=8)
BASE = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20).filter(
    lambda b: b.strip() and "=" not in b.split(":")[0] and parse_spec(b).variants == ()
    if _parses(b) else False)
OPTIONS = st.none() | st.text(st.characters(blacklist_characters="[]", blacklist_categories=("Cs",)), max_size=12)


def _parses(text: str) -> bool:
    try:
        parse_spec(text)
    except ModelError:
        return False
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(name=st.none() | NAME, base=BASE,
       variants=st.lists(st.tuples(st.sampled_from(VARIANT_SUFFIXES), OPTIONS), max_size=3))
def test_round_trip(name, base, variants):
    spec = ModelSpec(name or "", base, tuple(Variant(s, o) for s, o in variants))
    again = parse_spec(str(spec))
    assert again == spec and str(again) == str(spec)
    if spec.variants:
        assert again.parent == ModelSpec("", base, spec.variants[:-1])


#: Texts made of the grammar's own characters and suffixes, where the edge cases are.
TOKENS = st.lists(st.sampled_from([*"ab=:/[]*?+,-.x ", *VARIANT_SUFFIXES]), max_size=10).map("".join)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40) | TOKENS)
def test_any_text_parses_or_is_a_model_error(text):
    try:
        spec = parse_spec(text)
    except ModelError as err:
        assert "\n" not in str(err)
        return
    assert spec.body.endswith("".join(map(str, spec.variants))) and spec.base.strip()


@settings(max_examples=200, deadline=None)
@given(st.lists(TOKENS, max_size=3))
def test_expanding_and_resolving_any_text_never_raises_another_error(tmp_path_factory, texts):
    folder = tmp_path_factory.getbasetemp()
    for text in texts:
        for call, args in ((expand_spec, (text, folder)), (expand_globs, ([text],)), (load_model, (text,))):
            try:
                call(*args)
            except ModelError as err:
                assert "\n" not in str(err)


# ----------------------------------------------------------------- the same in every entry point
@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mini.toml").write_text(MINI_QUERY)
    return tmp_path


FAST = dict(metrics="WEAT", permutations=0, execution=Execution(cache=False, progress=False))


def test_a_variant_with_options_ranks_in_rank(folder):
    result = rank(["glove-6b-50d", HSR30], queries="mini.toml", **FAST)
    assert list(result.rankings.index) == ["glove-6b-50d", HSR30]
    assert result.aggregates.loc[HSR30, "WEAT"] != result.aggregates.loc["glove-6b-50d", "WEAT"]


def test_a_variant_with_options_ranks_from_the_cli_and_a_models_file(folder, capsys):
    (folder / "zoo.toml").write_text(f'[[models]]\nspec = "{HSR30}"\n')
    assert load_models_file(folder / "zoo.toml").specs == [HSR30]
    code = main(["rank", "--models", "glove-6b-50d", "--models-file", "zoo.toml", "--queries", "mini.toml",
                 "--metrics", "WEAT", "--permutations", "0", "--formats", "svg", "--no-cache"])
    assert code == 0, capsys.readouterr().err
    assert HSR30 in (folder / "results" / "aggregates.csv").read_text()


def test_load_model_and_export_take_the_same_spec(folder, capsys):
    vectors = load_model(HSR30).lookup(["nurse"])["nurse"]
    (folder / "words.txt").write_text("nurse\n")
    assert main(["export", HSR30, "--words", "words.txt", "--out", "out.txt"]) == 0
    line = (folder / "out.txt").read_text().splitlines()[1].split()
    assert line[0] == "nurse" and np.allclose(np.array(line[1:], dtype=float), vectors, atol=1e-6)


def test_a_bracket_in_a_file_name_is_a_character(folder):
    (folder / "m[1]").mkdir()
    write_glove(folder / "m[1]" / "v[2].txt", GENDER_WORDS, np.random.default_rng(0).normal(size=(12, 5)))
    assert load_model("m[1]/v[2].txt").name == "v[2]"
    # as a glob's folder, matched literally: "[1]" is not the class of "1"
    (folder / "m1").mkdir()
    write_glove(folder / "m1" / "w.txt", GENDER_WORDS, np.random.default_rng(1).normal(size=(12, 5)))
    assert expand_spec("glove:m[1]/*.txt") == ["glove:m[1]/v[2].txt"]
    result = rank(["glove:m[1]/*.txt+hard-debias"], queries="mini.toml", **FAST)
    assert list(result.rankings.index) == ["v[2]+hard-debias"]


def test_a_path_with_a_wildcard_that_exists_is_taken_as_it_is(folder):
    write_glove(folder / "a*.txt", GENDER_WORDS, np.random.default_rng(0).normal(size=(12, 5)))
    write_glove(folder / "ab.txt", GENDER_WORDS, np.random.default_rng(1).normal(size=(12, 5)))
    assert expand_spec("a*.txt") == ["a*.txt"]
    assert expand_spec("a?.txt") == ["a*.txt", "ab.txt"]  # a wildcard of a path that does not exist


def test_plain_variants_refuse_options(folder):
    with pytest.raises(ModelError, match=r"\+hard-debias takes no options"):
        load_model("glove-6b-50d+hard-debias[alpha=1]")
