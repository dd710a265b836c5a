"""Every option of every debias variant is checked by its declared spec
(:class:`wefe_same.validation.OptionSpec`): type, finite, range, upper bounds and
degenerate values, refused in one line naming the option, the value and the range, with
exit code 2 and before any work (issue 27)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wefe_same import Encoding
from wefe_same.cli import main
from wefe_same.errors import ModelError
from wefe_same.models import ArraySource, resolve_model
from wefe_same.models.debias import DoubleHardDebiasedSource, RANDebiasedSource
from wefe_same.models.debias.hsr import HSRDebiasedSource, shares
from wefe_same.models.debias.methods import BUILTIN_METHODS, method_parameters
from wefe_same.models.encoders.settings import ENCODER_OPTIONS, MAX_TEMPLATE_CHARS, check_templates, parse_options
from wefe_same.models.specs import LoadOptions
from wefe_same.run.config import RankConfig
from wefe_same.validation import InvalidParameterError, OptionSpec, check_declared

REFUSED = [
    # (variant, options, what the message must say)
    ("+hsr-debias", "alpha=0", "option alpha='0' must be a number > 0 (the ridge constant of Yang & Feng 2020"),
    ("+hsr-debias", "alpha=nan", "option alpha='nan' must be a number > 0"),
    ("+hsr-debias", "alpha=-inf", "option alpha='-inf' must be a number > 0"),
    ("+ran-debias", "lr=inf", "option lr='inf' must be a number in (0, 1]"),
    ("+ran-debias", "lr=0", "option lr='0' must be a number in (0, 1]"),
    ("+ran-debias", "weights=nan/0/0", "option weights='nan/0/0' must be 3 numbers A/B/C, each in [0, 1000]"),
    ("+ran-debias", "weights=0/0/0", "option weights='0/0/0' cannot be used: all three weights are 0"),
    ("+ran-debias", "weights=1/1", "option weights='1/1' must be 3 numbers"),
    ("+ran-debias", "epochs=100000000", "option epochs='100000000' must be an integer in [1, 10000]"),
    ("+ran-debias", "epochs=2.5", "option epochs='2.5' must be an integer"),
    ("+ran-debias", "neighbours=1_000", "option neighbours='1_000' must be an integer in [1, 500]"),
    ("+ran-debias", "theta=1e999", "option theta='1e999' must be a number in [-1e+06, 1e+06]"),
    ("+double-hard-debias", "words=0", "option words='0' must be an integer in [1, 50000]"),
    ("+double-hard-debias", "components=101", "option components='101' must be an integer in [1, 100]"),
    ("+double-hard-debias", "seed=4294967296", "option seed='4294967296' must be an integer in [0, 4294967295]"),
    ("+double-hard-debias", "vocab=١٢", "option vocab='١٢' must be an integer"),
    ("+hsr-debias", "beta=1", "+hsr-debias has no option 'beta'; its options: alpha"),
]


@pytest.mark.parametrize(("variant", "options", "message"), REFUSED)
def test_a_bad_option_value_is_refused_naming_the_option_value_and_range(variant, options, message):
    with pytest.raises(ModelError) as info:
        method_parameters(variant, options)
    assert message in str(info.value) and str(info.value).startswith(variant)
    assert "\n" not in str(info.value)


def test_the_bounds_themselves_are_taken():
    p = method_parameters("+ran-debias", "lr=1,epochs=10000,neighbours=500,weights=0/0/1000,theta=-1e6")
    assert (p["lr"], p["epochs"], p["neighbours"], p["weights"], p["theta"]) == (1.0, 10000, 500, (0.0, 0.0, 1000.0),
                                                                                -1e6)
    assert method_parameters("+hsr-debias", "alpha=1e-300")["alpha"] == 1e-300  # > 0: checked against the model
    assert method_parameters("+double-hard-debias", "words=50000,components=100,seed=0")["words"] == 50000


@pytest.mark.parametrize("spec", ["glove-6b-50d+hsr-debias[alpha=0]", "glove-6b-50d+ran-debias[epochs=100000000]",
                                  "glove-6b-50d+ran-debias[weights=nan/0/0]", "glove-6b-50d+ran-debias[lr=inf]"])
def test_export_refuses_a_bad_option_with_exit_2_and_writes_nothing(tmp_path, capsys, spec):
    words = tmp_path / "words.txt"
    words.write_text("he\nshe\nnurse\n")
    out = tmp_path / "vectors.txt"
    assert main(["export", spec, "--words", str(words), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("wefe-same: error: +") and "option" in err and "\n" not in err
    assert "Traceback" not in err and not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["words.txt"]


def test_hsr_refuses_an_alpha_that_leaves_only_noise():
    """alpha > 0 passes the spec; one so small that the regression fits every vector is refused
    when the model is known (alpha = 1e-12 left GloVe's vectors at 1e-12 of their length)."""
    rng = np.random.default_rng(0)
    words = [f"g{i}" for i in range(8)] + ["nurse"]
    base = ArraySource("toy", words, rng.normal(size=(9, 4)))
    definition = base.lookup(words[:8])
    assert shares(np.array([definition[w] for w in words[:8]]), 1e-12)[0] < 1e-9
    with pytest.raises(ModelError, match=r"toy\+hsr-debias: alpha=1e-12 keeps at most .* give alpha >= "):
        HSRDebiasedSource(base, definitional=words[:8], alpha=1e-12).lookup(["nurse"])
    with pytest.raises(ModelError, match=r"toy\+hsr-debias: alpha=1e\+12 removes at most .* the variant would be "
                                         r"its base\); give alpha <= "):
        HSRDebiasedSource(base, definitional=words[:8], alpha=1e12).lookup(["nurse"])
    kept = HSRDebiasedSource(base, definitional=words[:8], alpha=60.0).lookup(["nurse"])["nurse"]
    assert np.linalg.norm(kept) > 0.1 * np.linalg.norm(base.lookup(["nurse"])["nurse"])


def test_hsr_with_fewer_definition_words_than_dimensions_is_never_degenerate():
    # Two definition words in 4 dimensions: the other two directions are kept whole.
    assert shares(np.eye(4)[:2] * 3, 1e-12)[0] == 1.0


def test_ran_that_diverges_is_an_error_naming_lr_not_a_numpy_warning(monkeypatch):
    import wefe_same.models.debias.ran as ran

    monkeypatch.setattr(ran, "ran_optimize", lambda w, *a, **k: np.full_like(w, np.inf))
    source = resolve_model("glove-6b-50d+ran-debias[epochs=1,vocab=500]")
    with pytest.raises(ModelError, match=r"Adam diverged \(non-finite vectors\) with lr=0.01 .* give a smaller lr"):
        source.lookup(["nurse"])


# -- the mechanism, for every declared option ------------------------------------------------------

DECLARED = [(m.suffix, key, spec) for m in BUILTIN_METHODS for key, spec in m.options.items()] + [
    ("encoder", key, spec) for key, spec in ENCODER_OPTIONS.items()]


@settings(max_examples=300, deadline=None)
@given(which=st.sampled_from(DECLARED), value=st.text(max_size=30))
def test_any_string_for_any_option_gives_a_value_or_a_line_naming_it(which, value):
    variant, key, spec = which
    try:
        parsed = spec.check(variant, key, value, ModelError)
    except ModelError as err:
        text = str(err)
        assert text.startswith(f"{variant} option {key}=") and "\n" not in text
        return
    if spec.kind in ("int", "number"):
        assert np.isfinite(parsed) and spec.parse(str(parsed)) == parsed
        assert (spec.low is None or parsed >= spec.low) and (spec.high is None or parsed <= spec.high)
    if spec.kind == "int":
        assert isinstance(parsed, int)


@settings(max_examples=200, deadline=None)
@given(which=st.sampled_from(DECLARED),
       value=st.one_of(st.integers(), st.floats(), st.booleans(), st.none(), st.lists(st.floats(), max_size=4)))
def test_any_python_value_for_any_option_gives_a_value_or_a_typed_error(which, value):
    variant, key, spec = which
    try:
        parsed = check_declared(variant, {key: value}, {key: spec})[key]
    except InvalidParameterError as err:
        assert f"option {key}=" in str(err) and "\n" not in str(err)
        return
    assert not isinstance(value, bool) and value is not None
    if spec.kind == "numbers":
        assert len(parsed) == spec.count and all(np.isfinite(parsed))


def test_a_long_value_is_cut_in_the_message():
    with pytest.raises(InvalidParameterError) as info:
        OptionSpec("int", low=1).check("+x", "n", "9" * 100_000)
    assert len(str(info.value)) < 200 and "(100000 characters)" in str(info.value)


# -- encoder settings ------------------------------------------------------------------------------

LONG = "x" * 1_000_000 + " {word}."


def test_a_one_megabyte_template_is_refused_before_any_work(tmp_path, capsys):
    """It took 69 s to tokenize, then was cut to the model's positions anyway."""
    with pytest.raises(InvalidParameterError, match=r"The 'templates' parameter of Encoding must be text of at most "
                                                    rf"{MAX_TEMPLATE_CHARS} characters .* \(10000\d\d characters\) instead"):
        RankConfig(models=["minilm-l6-v2"], encoding=Encoding(templates=[LONG]))
    with pytest.raises(ModelError, match="encoder option template=.* must be text of at most 2000 characters"):
        check_templates([LONG])
    with pytest.raises(ModelError, match="encoder option template="):
        resolve_model("minilm-l6-v2", LoadOptions(templates=(LONG,)))
    file = tmp_path / "templates.txt"
    file.write_text("A {word}.\n" + LONG + "\n")
    out = tmp_path / "results"
    assert main(["rank", "--models", "minilm-l6-v2", "--templates", str(file), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "templates file" in err and "at most 2000 characters" in err and len(err) < 400
    assert not out.exists()
    assert check_templates(["y" * (MAX_TEMPLATE_CHARS - 7) + " {word}"])  # the bound itself is taken


def test_too_many_templates_or_context_sentences_are_refused():
    with pytest.raises(InvalidParameterError, match=r"'templates' parameter of Encoding must be an integer in \[1, 200\]"):
        RankConfig(models=["minilm-l6-v2"], encoding=Encoding(templates=[f"{i} {{word}}." for i in range(201)]))
    with pytest.raises(InvalidParameterError, match=r"'contexts_per_word' parameter of Encoding must be an integer in "
                                                    r"\[1, 1000\] \(each sentence is one encoder pass per word\)"):
        RankConfig(models=["minilm-l6-v2"], encoding=Encoding(contexts_per_word=5000))
    with pytest.raises(ModelError, match=r"encoder option contexts_per_word=0 must be an integer in \[1, 1000\]"):
        resolve_model("minilm-l6-v2", LoadOptions(contexts_per_word=0))


def test_spec_options_of_an_encoder_go_through_the_declared_specs():
    with pytest.raises(ModelError, match=r"model spec 'hf:m,revision=.*' option revision=.* must be text of at most 200"):
        parse_options("hf", "m,revision=" + "r" * 300)
    assert parse_options("hf", "m,revision=v1.0") == ("m", {"revision": "v1.0"})


# -- the sources' constructors check the same specs -------------------------------------------------


@pytest.mark.parametrize(("make", "message"), [
    (lambda b: RANDebiasedSource(b, definitional=[], preserve=[], lr=float("inf")),
     r"The 'lr' parameter of RANDebiasedSource must be a number in \(0, 1\] .* Got inf instead."),
    (lambda b: RANDebiasedSource(b, definitional=[], preserve=[], weights=(0, 0, 0)),
     r"The 'weights' parameter of RANDebiasedSource must be 3 numbers .*all three weights are 0"),
    (lambda b: RANDebiasedSource(b, definitional=[], preserve=[], epochs=10**8),
     r"The 'epochs' parameter of RANDebiasedSource must be an integer in \[1, 10000\]"),
    (lambda b: HSRDebiasedSource(b, definitional=[], alpha=float("nan")),
     r"The 'alpha' parameter of HSRDebiasedSource must be a number > 0"),
    (lambda b: DoubleHardDebiasedSource(b, definitional=[], equalize_pairs=[], gender_specific=[], random_state=-1),
     r"The 'random_state' parameter of DoubleHardDebiasedSource must be an integer in \[0, 4294967295\]"),
    (lambda b: DoubleHardDebiasedSource(b, definitional=[], equalize_pairs=[], gender_specific=[], words=True),
     r"The 'words' parameter of DoubleHardDebiasedSource must be an integer in \[1, 50000\]"),
])
def test_the_constructors_refuse_what_the_spec_options_refuse(make, message):
    base = ArraySource("toy", ["a"], np.eye(1))
    with pytest.raises(InvalidParameterError, match=message):
        make(base)


def test_the_constructors_take_numpy_values():
    base = ArraySource("toy", ["a"], np.eye(1))
    ran = RANDebiasedSource(base, definitional=[], preserve=[], weights=np.array([0.5, 0.25, 0.25]),
                            lr=np.float32(0.5), epochs=np.int64(7))
    assert (ran.weights, ran.lr, ran.epochs) == ((0.5, 0.25, 0.25), 0.5, 7)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40))
def test_any_spec_options_text_of_an_encoder_gives_options_or_one_line(text):
    from wefe_same.models.encoders.settings import parse_layer
    from wefe_same.models.encoders.vary import parse_vary

    for parse in (lambda: parse_options("hf", "m," + text), lambda: parse_layer("hf:m", text),
                  lambda: parse_vary([text]), lambda: method_parameters("+ran-debias", text)):
        try:
            parse()
        except ModelError as err:
            assert "\n" not in str(err)
