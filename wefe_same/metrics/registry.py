"""One registry of frozen metric specs: name, function, template, order, randomness.

Whether lower is better lives here, not in the metric functions (like scikit-learn's
scorer specs). An unknown name fails with the list of valid names.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from wefe_same.errors import MetricError, unknown_name
from wefe_same.metrics._permutation import ALTERNATIVES
from wefe_same.metrics.direct_bias import direct_bias
from wefe_same.metrics.ect import ect
from wefe_same.metrics.gweat import gweat
from wefe_same.metrics.mac import mac
from wefe_same.metrics.result import MetricResult
from wefe_same.metrics.ripa import ripa
from wefe_same.metrics.rnd import rnd
from wefe_same.metrics.rnsb import prefit as rnsb_prefit
from wefe_same.metrics.rnsb import rnsb
from wefe_same.metrics.same import same, same_skew, same_stereotype
from wefe_same.metrics.weat import weat
from wefe_same.metrics.weat_es import weat_effect_size
from wefe_same.query.sets import AtLeast, Template
from wefe_same.validation import check_bool, check_choice, check_int, check_number

Order = Literal["abs", "ascending", "descending", "ideal"]
Arrays = list[np.ndarray]
#: Checks one option value: ``check(value, option, metric)`` returns it or raises
#: :class:`~wefe_same.validation.InvalidParameterError` naming the metric and the option.
OptionCheck = Callable[[Any, str, str], Any]


def integer(minimum: int, *, none: bool = False) -> OptionCheck:
    """An integer >= ``minimum`` (or None when ``none``).

    >>> integer(1)(0, "k", "DirectBias")
    Traceback (most recent call last):
    ...
    wefe_same.validation.InvalidParameterError: The 'k' parameter of DirectBias must be an integer >= 1. Got 0 instead.
    """
    def check(value: Any, option: str, metric: str) -> Any:
        if none and value is None:
            return None
        return check_int(value, option, metric, minimum=minimum)
    return check


def number(low: float | None = None, high: float | None = None, *, low_open: bool = False,
           high_open: bool = False) -> OptionCheck:
    """A finite number in the interval given (closed unless ``*_open``)."""
    return lambda value, option, metric: check_number(value, option, metric, low=low, high=high,
                                                      low_open=low_open, high_open=high_open)


def one_of(*choices: Any) -> OptionCheck:
    """One of ``choices``."""
    return lambda value, option, metric: check_choice(value, option, metric, choices)


def boolean() -> OptionCheck:
    """True or False."""
    return lambda value, option, metric: check_bool(value, option, metric)


#: The permutation test's options, shared by WEAT and WEAT-ES.
PERMUTATION_OPTIONS: dict[str, OptionCheck] = {
    "permutations": integer(0),
    "alternative": one_of(*ALTERNATIVES),
    "exact_limit": integer(0),
}
#: Details of WEAT and WEAT-ES that ``details.csv`` shows as columns of their own.
PERMUTATION_DETAILS = ("p_value", "n_splits", "p_method")

#: What each order relation means (Badilla et al. 2020, §3.1: the relation says which score is less biased).
ORDER_MEANING: dict[Order, str] = {
    "abs": "|x| ascending (0 is unbiased)",
    "ascending": "x ascending (0 is unbiased)",
    "descending": "x descending (higher is fairer)",
    "ideal": "|x − ideal| ascending",
}


@dataclass(frozen=True)
class MetricSpec:
    """Everything the framework knows about one metric.

    Attributes
    ----------
    name : str
    func : callable
        The pure function on arrays; its keyword-only parameters are the metric's options.
    call : callable (targets, attributes, **options) -> MetricResult
        Spreads a subquery's arrays onto ``func``.
    template : Template
    order : {"abs", "ascending", "descending", "ideal"}
    ideal : float
        The no-bias value (0 unless stated; MAC 1, ECT 1); ``order="ideal"`` ranks by
        the distance to it.
    stochastic : bool
        Takes ``random_state``.
    vectors : {"unit", "raw"}
        Which vectors the function receives.
    unit_option : str or None
        A boolean option that, when true, makes the function scale every input row to
        unit length first (RND's ``normalize``): scoring then hands it the table's unit
        vectors, which are those rows bit for bit (scaled once per model, not per
        subquery), and calls it with the option false (`inputs`).
    aligned_targets : bool
        Target sets are aligned tuples by position; a missing word drops its tuple.
    word_role : {"targets", "attributes"} or None
        Whose words the result's ``word_values`` rows belong to (all sets of that role,
        concatenated in order).
    random_stream : str or None
        Metrics with the same stream get the same random draws (WEAT and WEAT-ES share
        their permutations, so their p-values agree); default: the metric's name.
    seed_by : {"subquery", "attributes"}
        What the random draws depend on besides the seed: the whole subquery, or only its
        attribute sets (RNSB: one classifier per attribute pair, shared by every target set).
    formula, reference : str
        For the docs and ``wefe-same metrics``.
    option_checks : mapping of str to OptionCheck
        One check per keyword-only option of ``func`` (``random_state`` excluded):
        ``check(value, option, metric name)`` returns the value or raises
        `InvalidParameterError`. `check_options` runs
        them before any work; every option must have one.
    promoted_details : tuple of str
        Detail keys shown as columns of their own in ``details.csv`` (the permutation
        test's ``p_value``, ``n_splits``, ``p_method`` for WEAT and WEAT-ES); the other
        details go to its JSON column.
    prefit : callable or None
        Called with [(targets, attributes, options, random_state), …] of many subqueries of
        one model before they are computed one by one, to share work between them (RNSB:
        all their classifiers in one batched solve); it may not change any result.
    pair_keyed : bool
        Details and ``word_values`` have keys ``"signed_i_j"`` / ``"pair_i_j"`` indexed by
        pairs i < j of target sets (SAME, SAME-skew, SAME-stereotype), which tables
        rename with the sets' names.
    """

    name: str
    func: Callable[..., MetricResult]
    call: Callable[..., MetricResult]
    template: Template
    order: Order
    formula: str
    reference: str
    ideal: float = 0.0
    stochastic: bool = False
    vectors: Literal["unit", "raw"] = "unit"
    unit_option: str | None = None
    aligned_targets: bool = False
    word_role: Literal["targets", "attributes"] | None = None
    random_stream: str | None = None
    seed_by: Literal["subquery", "attributes"] = "subquery"
    option_checks: Mapping[str, OptionCheck] = field(default_factory=dict, hash=False, compare=False)
    promoted_details: tuple[str, ...] = ()
    pair_keyed: bool = False
    prefit: Callable[[list[tuple[Arrays, Arrays, Mapping[str, Any], int | None]]], Any] | None = field(
        default=None, hash=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "option_checks", MappingProxyType(dict(self.option_checks)))
        if self.unit_option is not None and self.unit_option not in self.options:
            raise MetricError(f"metric {self.name!r}: unit_option {self.unit_option!r} is not one of its options")
        if set(self.option_checks) != set(self.options):
            raise MetricError(
                f"metric {self.name!r}: option_checks must have one check per option; options: "
                f"{', '.join(self.options) or 'none'}; checks: {', '.join(self.option_checks) or 'none'}"
            )

    @property
    def options(self) -> dict[str, Any]:
        """Keyword-only options of ``func`` and their defaults (``random_state`` excluded)."""
        return {
            p.name: p.default
            for p in inspect.signature(self.func).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name != "random_state"
        }

    def check_option(self, option: str, value: Any) -> Any:
        """``value`` if ``option`` is one of the metric's options and may take it.

        >>> METRICS["DirectBias"].check_option("c", -1)
        Traceback (most recent call last):
        ...
        wefe_same.validation.InvalidParameterError: The 'c' parameter of DirectBias must be a number >= 0. Got -1 instead.
        """
        if option not in self.options:
            valid = ", ".join(self.options) or "none"
            raise MetricError(f"metric {self.name!r} has no option {option!r}; its options: {valid}")
        return self.option_checks[option](value, option, self.name)

    def inputs(self, options: Mapping[str, Any]) -> tuple[Literal["unit", "raw"], Mapping[str, Any]]:
        """The vectors scoring gathers for this metric, and the options to call it with.

        >>> METRICS["RND"].inputs({})
        ('unit', {'normalize': False})
        >>> METRICS["RND"].inputs({"normalize": False})
        ('raw', {'normalize': False})
        """
        if self.unit_option is not None and options.get(self.unit_option, self.options[self.unit_option]):
            return "unit", {**options, self.unit_option: False}
        return self.vectors, options

    def compute(
        self,
        targets: Arrays,
        attributes: Arrays,
        options: Mapping[str, Any] | None = None,
        random_state: int | None = None,
    ) -> MetricResult:
        kwargs = dict(options or {})
        if self.stochastic:
            kwargs["random_state"] = random_state
        return self.call(targets, attributes, **kwargs)


METRICS: dict[str, MetricSpec] = {
    s.name: s
    for s in [
        MetricSpec(
            name="WEAT", func=weat,
            call=lambda t, a, **o: weat(t[0], t[1], a[0], a[1], **o),
            template=Template(2, 2), order="abs", stochastic=True, word_role="targets",
            option_checks=PERMUTATION_OPTIONS, promoted_details=PERMUTATION_DETAILS,
            formula="Σ_{x∈T1} s(x,A1,A2) − Σ_{y∈T2} s(y,A1,A2), s(w,A,B) = mean_a cos(w,a) − mean_b cos(w,b)",
            reference="Caliskan, Bryson & Narayanan 2017, Science 356(6334)",
        ),
        MetricSpec(
            name="WEAT-ES", func=weat_effect_size,
            call=lambda t, a, **o: weat_effect_size(t[0], t[1], a[0], a[1], **o),
            template=Template(2, 2), order="abs", stochastic=True, random_stream="WEAT",
            option_checks={"ddof": one_of(0, 1), **PERMUTATION_OPTIONS}, promoted_details=PERMUTATION_DETAILS,
            formula="(mean_{T1} s − mean_{T2} s) / std_{T1∪T2} s  (ddof=1 by default)",
            reference="Caliskan, Bryson & Narayanan 2017, Science 356(6334)",
        ),
        MetricSpec(
            name="RND", func=rnd,
            call=lambda t, a, **o: rnd(t[0], t[1], a[0], **o),
            template=Template(2, 1), order="abs", vectors="raw", unit_option="normalize",
            option_checks={"normalize": boolean()},
            formula="Σ_{a∈A} (‖avg(T1) − a‖₂ − ‖avg(T2) − a‖₂), unit vectors by default",
            reference="Garg, Schiebinger, Jurafsky & Zou 2018, PNAS 115(16)",
        ),
        MetricSpec(
            name="RNSB", func=rnsb,
            call=lambda t, a, **o: rnsb(t, a[0], a[1], **o),
            template=Template(AtLeast(2), 2), order="ascending", stochastic=True, seed_by="attributes",
            prefit=rnsb_prefit,
            option_checks={"n_iterations": integer(1), "train_fraction": number(0, 1, low_open=True)},
            formula="KL(P ‖ U), P(w) ∝ P_logreg(A2 | w) over the words of T1 ∪ … ∪ Tn",
            reference="Sweeney & Najafian 2019, ACL; generalised as in WEFE (Badilla et al. 2020)",
        ),
        MetricSpec(
            name="MAC", func=mac,
            call=lambda t, a, **o: mac(t[0], *a, **o),
            template=Template(1, AtLeast(1)), order="ideal", ideal=1.0,
            formula="mean_{t∈T, j} mean_{a∈Aj} (1 − cos(t, a))",
            reference="Manzini, Lim, Tsvetkov & Black 2019, NAACL",
        ),
        MetricSpec(
            name="SAME", func=same,
            call=lambda t, a, **o: same(a[0], *t, **o),
            template=Template(AtLeast(2), 1), order="ascending", word_role="attributes", pair_keyed=True,
            formula="mean_{t∈A} ‖(cos(t, b_k))_k‖, b_k: Gram–Schmidt basis of â_i − â_0 over the target groups",
            reference="Schröder, Schulz & Hammer 2024, §3",
        ),
        MetricSpec(
            name="DirectBias", func=direct_bias,
            call=lambda t, a, **o: direct_bias(a[0], *t, **o),
            template=Template(AtLeast(2), 1), order="ascending", aligned_targets=True,
            word_role="attributes", option_checks={"k": integer(1, none=True), "c": number(0)},
            formula="mean_{t∈A} ‖(cos(t, b_i))_{i≤k}‖^c, b_i: first k PCs of the centred aligned target tuples",
            reference="Bolukbasi et al. 2016, NeurIPS; k-dimensional form: Schröder, Schulz & Hammer 2024, eq. 17",
        ),
        MetricSpec(
            name="gWEAT", func=gweat,
            call=lambda t, a, **o: gweat(t, a, **o),
            template=Template(AtLeast(2), AtLeast(2)), order="abs",
            formula="Σ_i (T̄_i − μ)·(Ā_i − Ā), target set i paired with attribute set i, unit vectors",
            reference="Swinger et al. 2019, AIES; as in Schröder, Schulz & Hammer 2024, eq. 3",
        ),
        MetricSpec(
            name="ECT", func=ect,
            call=lambda t, a, **o: ect(t[0], t[1], a[0], **o),
            template=Template(2, 1), order="descending", ideal=1.0,
            formula="Spearman rho of (cos(mean T1, a))_a and (cos(mean T2, a))_a",
            reference="Dev & Phillips 2019, AISTATS; as in WEFE",
        ),
        MetricSpec(
            name="RIPA", func=ripa,
            call=lambda t, a, **o: ripa(t[0], t[1], a[0], **o),
            template=Template(2, 1), order="abs", vectors="raw", aligned_targets=True,
            formula="mean_{a∈A} mean_i ⟨a, (x_i − y_i)/‖x_i − y_i‖⟩ over the aligned pairs (x_i, y_i) of T1, T2",
            reference="Ethayarajh, Duvenaud & Hirst 2019, ACL; as in WEFE",
        ),
        MetricSpec(
            name="SAME-skew", func=same_skew,
            call=lambda t, a, **o: same_skew(a[0], *t, **o),
            template=Template(AtLeast(2), 1), order="abs", pair_keyed=True,
            formula="mean_{t∈A} cos(t, â_i − â_j); n > 2 groups: mean over pairs i < j of |skew_ij|",
            reference="Schröder et al. 2021, §4.4",
        ),
        MetricSpec(
            name="SAME-stereotype", func=same_stereotype,
            call=lambda t, a, **o: same_stereotype(a[0], *t, **o),
            template=Template(AtLeast(2), 1), order="ascending", pair_keyed=True,
            formula="std_{t∈A} cos(t, â_i − â_j); n > 2 groups: mean over pairs i < j",
            reference="Schröder et al. 2021, §4.4",
        ),
    ]
}


def get_metric(name: str) -> MetricSpec:
    try:
        return METRICS[name]
    except KeyError:
        raise MetricError(unknown_name("metric", name, METRICS)) from None


def resolve_metrics(names: Iterable[str] | None) -> list[MetricSpec]:
    """Specs for ``names`` (all metrics when None), in the order given."""
    if names is None:
        return list(METRICS.values())
    names = list(names)
    if not names:
        raise MetricError("no metric given; valid metrics are: " + ", ".join(METRICS))
    return [get_metric(n) for n in dict.fromkeys(names)]


def check_options(specs: Iterable[MetricSpec], metric_options: Mapping[str, Mapping[str, Any]] | None) -> None:
    """Every option must name a selected metric, one of its keyword-only parameters, and a
    value that parameter takes; checked before any work starts.

    Raises
    ------
    MetricError
        An unselected metric or an unknown option.
    InvalidParameterError
        A bad value: "The 'k' parameter of DirectBias must be an integer >= 1. Got 0 instead."

    >>> check_options([METRICS["RNSB"]], {"RNSB": {"train_fraction": 0}})
    Traceback (most recent call last):
    ...
    wefe_same.validation.InvalidParameterError: The 'train_fraction' parameter of RNSB must be a number in (0, 1]. Got 0 instead.
    """
    by_name = {s.name: s for s in specs}
    for metric, opts in (metric_options or {}).items():
        if metric not in by_name:
            raise MetricError(
                f"metric_options names metric {metric!r}, which is not selected; selected: {', '.join(by_name)}"
            )
        for key, value in opts.items():
            by_name[metric].check_option(key, value)
