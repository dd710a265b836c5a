"""Every metric option's value is checked before any work (issue 7, item 2).

One parametrized test over the whole registry: every keyword-only option of every metric
has a declared check, its default passes it, and bad values are refused with the one
message shape, naming the metric (as the function) and the option.
"""

import math

import numpy as np
import pytest

from wefe_same import METRICS, Execution, MetricError, WefeSameError
from wefe_same.metrics.registry import MetricSpec, check_options, resolve_metrics
from wefe_same.query.sets import Template
from wefe_same.validation import InvalidParameterError

#: Values each option must refuse (at least one per option of every metric).
BAD_VALUES = {
    ("WEAT", "permutations"): [-1, 1.5, "100", True, None],
    ("WEAT", "alternative"): ["two_sided", "Greater", None, 1],
    ("WEAT", "exact_limit"): [-1, 10.0, None, False],
    ("WEAT-ES", "ddof"): [2, -1, 0.5, "1", None],
    ("WEAT-ES", "permutations"): [-5, 2.0],
    ("WEAT-ES", "alternative"): ["both"],
    ("WEAT-ES", "exact_limit"): [-1],
    ("RND", "normalize"): [1, 0, "True", None],
    ("RNSB", "n_iterations"): [0, -1, 2.5, True, None],
    ("RNSB", "train_fraction"): [0, -0.1, 1.01, math.nan, math.inf, "0.5", None, True],
    ("DirectBias", "k"): [0, -1, 1.5, "2", True],
    ("DirectBias", "c"): [-1, -1e-9, math.nan, math.inf, "1", None, True],
}
#: Values each option must accept besides its default.
GOOD_VALUES = {
    ("WEAT", "permutations"): [0, 1, 10_000, np.int64(5)],
    ("WEAT", "alternative"): ["greater", "less", "two-sided"],
    ("WEAT", "exact_limit"): [0, 1, 10**9],
    ("WEAT-ES", "ddof"): [0, 1],
    ("RND", "normalize"): [True, False],
    ("RNSB", "n_iterations"): [1, 25],
    ("RNSB", "train_fraction"): [1, 1e-6, 0.5],
    ("DirectBias", "k"): [None, 1, 3],
    ("DirectBias", "c"): [0, 0.5, 1, 2],
}

OPTIONS = [(name, option) for name, spec in METRICS.items() for option in spec.options]


def test_every_option_has_bad_values_listed():
    # A new option needs its bad values here, so the test below covers it.
    assert set(BAD_VALUES) == set(OPTIONS)


@pytest.mark.parametrize(("metric", "option"), OPTIONS)
def test_every_option_is_declared_and_checked(metric, option):
    spec = METRICS[metric]
    assert set(spec.option_checks) == set(spec.options)
    default = spec.options[option]
    check_options([spec], {metric: {option: default}})
    for good in GOOD_VALUES.get((metric, option), []):
        check_options([spec], {metric: {option: good}})
    for bad in BAD_VALUES[(metric, option)]:
        with pytest.raises(InvalidParameterError) as info:
            check_options([spec], {metric: {option: bad}})
        message = str(info.value)
        assert message.startswith(f"The {option!r} parameter of {metric} must be ")
        assert message.endswith(f"Got {bad!r} instead.")
        assert isinstance(info.value, ValueError) and isinstance(info.value, WefeSameError)


def test_the_message_of_the_issue():
    with pytest.raises(InvalidParameterError) as info:
        check_options(resolve_metrics(None), {"DirectBias": {"k": 0}})
    assert str(info.value) == "The 'k' parameter of DirectBias must be an integer >= 1. Got 0 instead."


def test_a_spec_cannot_declare_an_option_without_a_check():
    def metric(T, *, strength: float = 1.0):
        raise AssertionError("never called")

    with pytest.raises(MetricError, match="option_checks must have one check per option; options: strength"):
        MetricSpec(name="X", func=metric, call=metric, template=Template(1, 1), order="abs",
                   formula="", reference="")


@pytest.mark.parametrize(("metric", "option", "bad", "func"), [
    ("DirectBias", "k", 0, "direct_bias"),
    ("DirectBias", "c", -1, "direct_bias"),
    ("RNSB", "n_iterations", 0, "rnsb"),
    ("RNSB", "train_fraction", 1.5, "rnsb"),
    ("WEAT", "permutations", -1, "weat"),
    ("WEAT", "alternative", "both", "weat"),
    ("WEAT", "exact_limit", -1, "weat"),
    ("WEAT-ES", "ddof", 2, "weat_effect_size"),
])
def test_the_functions_keep_their_own_checks(metric, option, bad, func):
    # Direct calls (no registry in between) are guarded too, with the function's name.
    spec = METRICS[metric]
    rng = np.random.default_rng(0)
    targets = [rng.normal(size=(4, 6)) for _ in range(2)]
    targets = [T / np.linalg.norm(T, axis=1, keepdims=True) for T in targets]
    attributes = [t.copy() for t in targets]
    with pytest.raises(InvalidParameterError, match=f"^The '{option}' parameter of {func} must be"):
        spec.compute(targets, attributes, {option: bad}, random_state=0)


def test_rank_checks_option_values_before_reading_any_model():
    from wefe_same import rank

    # A model that does not exist would fail later: the option fails first.
    with pytest.raises(InvalidParameterError, match="The 'train_fraction' parameter of RNSB"):
        rank(["no-such-model-anywhere"], "gender", metrics=["RNSB"], metric_options={"RNSB": {"train_fraction": 0}},
             execution=Execution(progress=False))
