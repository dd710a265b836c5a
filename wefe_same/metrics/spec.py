"""The metric spec: what the framework knows about one metric, and the checks of its options.

A built-in metric's module declares its spec (``METRIC = MetricSpec(...)``) and an
installed package declares its own the same way (an entry point in the group
``wefe_same.metrics``); :mod:`wefe_same.metrics.registry` collects both. Whether lower
is better lives here, not in the metric functions (like scikit-learn's scorer specs).
"""

from __future__ import annotations

import hashlib
import inspect
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np

from wefe_same.errors import MetricError
from wefe_same.metrics.result import MetricResult
from wefe_same.query.sets import Template
from wefe_same.validation import check_bool, check_choice, check_int, check_number

if TYPE_CHECKING:
    from wefe_same.metrics.memo import Memo

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
        The pure function on arrays; its keyword-only parameters are the metric's options,
        except ``random_state`` and ``memo``: a ``memo=None`` parameter gets the call's
        ``Memo`` from scoring (the run's and the model's remembered values,
        `wefe_same.metrics.memo`), which may save work and never changes a result.
    call : callable (targets, attributes, **options) -> MetricResult
        Spreads a subquery's arrays onto ``func``.
    template : Template
    order : {"abs", "ascending", "descending", "ideal"}
    ideal : float
        The no-bias value (0 unless stated; MAC 1, ECT 1); ``order="ideal"`` ranks by
        the distance to it.
    change_tolerance : float
        The smallest change of the metric's overall aggregate (on its bias scale, in the
        metric's own units) that a debiasing verdict counts as a change when the run has no
        word bootstrap (`wefe_same.analysis.debias_effect`): a difference with
        |difference| ≤ tolerance is "no change". A resolution convention of the metric's
        scale, not a test (default 0.01; the built-ins declare theirs, docs/guide/metrics).
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
        One check per keyword-only option of ``func`` (``random_state`` and ``memo`` excluded):
        ``check(value, option, metric name)`` returns the value or raises
        `InvalidParameterError`. `check_options` runs
        them before any work; every option must have one.
    promoted_details : tuple of str
        Detail keys shown as columns of their own in ``details.csv`` (the permutation
        test's ``p_value``, ``n_splits``, ``p_method`` for WEAT and WEAT-ES); the other
        details go to its JSON column.
    prefit : callable or None
        Called with [(memo, targets, attributes, options, random_state), …] of many subqueries of
        one model before they are computed one by one, to share work between them (RNSB:
        all their classifiers in one batched solve); it may not change any result.
    memo_call : callable or None
        ``call`` with the call's ``Memo`` first:
        ``memo_call(memo, targets, attributes, **options)`` reads the quantities that
        other subqueries and metrics of the model share from it instead of computing them
        again. It returns what ``call`` returns, bit for bit. Scoring uses it when given.
    permuted_draws : callable or None
        The chance baseline's permutation null in one pass (`wefe_same.scoring.chance`):
        ``permuted_draws(targets, attributes, target_labels, attribute_labels, memo=None, **options)``
        returns the metric's value in each of D draws, where ``target_labels[d, r]`` is the
        target set that row ``r`` of ``concatenate(targets)`` is dealt to in draw ``d``
        (sizes kept; likewise the attributes; None: that role as it is); ``memo``, when
        given, keys each array by its role's deals too, so what it remembers serves every
        subquery dealt alike (`wefe_same.scoring.chance.draw_memo`). It equals
        ``call`` on those arrays to rounding (tests/scoring/test_chance.py), and costs
        products of the pooled words' cosines instead of one call per draw: metrics with
        one get the chance baselines by default.
    declare_memo : callable or None
        Called with [(memo, targets, attributes, options), …] of many
        subqueries before they are computed, to say what they will ask the memo for
        (RND: the distances of each attribute set to each target set's mean, computed
        in one pass over the attribute set's words).
    pair_keyed : bool
        Details and ``word_values`` have keys ``"signed_i_j"`` / ``"pair_i_j"`` indexed by
        pairs i < j of target sets (SAME, SAME-skew, SAME-stereotype), which tables
        rename with the sets' names.
    origin : MetricOrigin or None
        Where the metric's code comes from (module, qualified name, a digest of its
        source, the package that declares it), set by the registry and by
        `make_metric`; None for a spec made by hand and not yet registered. A spec
        whose origin is not built in is *guarded*: `compute` turns an exception or
        a result that is not one finite number into NaN with the reason.
    """

    name: str
    func: Callable[..., MetricResult]
    call: Callable[..., MetricResult]
    template: Template
    order: Order
    formula: str
    reference: str
    ideal: float = 0.0
    change_tolerance: float = 0.01
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
    prefit: Callable[[list[tuple[Memo, Arrays, Arrays, Mapping[str, Any], int | None]]], Any] | None = field(
        default=None, hash=False, compare=False)
    memo_call: Callable[..., MetricResult] | None = field(default=None, hash=False, compare=False)
    declare_memo: Callable[[list[tuple[Memo, Arrays, Arrays, Mapping[str, Any]]]], None] | None = field(
        default=None, hash=False, compare=False)
    permuted_draws: Callable[..., np.ndarray] | None = field(default=None, hash=False, compare=False)
    origin: MetricOrigin | None = field(default=None, hash=False, compare=False)
    #: ``func`` takes a keyword-only ``memo`` (read from its signature).
    takes_memo: bool = field(init=False, repr=False, hash=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "option_checks", MappingProxyType(dict(self.option_checks)))
        object.__setattr__(self, "takes_memo", callable(self.func) and _has_keyword(self.func, "memo"))
        if not isinstance(self.name, str) or not self.name.strip() or self.name != self.name.strip():
            raise MetricError(f"a metric name must be a non-empty string without surrounding spaces, "
                              f"not {self.name!r}")
        if not isinstance(self.template, Template):
            raise MetricError(f"metric {self.name!r}: template must be a Template, such as Template(2, 2) or "
                              f"Template(AtLeast(2), 1), not {self.template!r}")
        if self.order not in get_args(Order):
            raise MetricError(f"metric {self.name!r}: order must be one of {', '.join(get_args(Order))}, "
                              f"not {self.order!r}")
        if self.vectors not in ("unit", "raw"):
            raise MetricError(f"metric {self.name!r}: vectors must be 'unit' or 'raw', not {self.vectors!r}")
        if self.word_role not in (None, "targets", "attributes"):
            raise MetricError(f"metric {self.name!r}: word_role must be None, 'targets' or 'attributes', "
                              f"not {self.word_role!r}")
        if (not isinstance(self.ideal, numbers.Real) or isinstance(self.ideal, bool)
                or not math.isfinite(self.ideal)):
            raise MetricError(f"metric {self.name!r}: ideal must be a finite number, not {self.ideal!r}")
        if (not isinstance(self.change_tolerance, numbers.Real) or isinstance(self.change_tolerance, bool)
                or not math.isfinite(self.change_tolerance) or self.change_tolerance < 0):
            raise MetricError(f"metric {self.name!r}: change_tolerance must be a finite number >= 0, "
                              f"not {self.change_tolerance!r}")
        if not callable(self.func) or not callable(self.call):
            raise MetricError(f"metric {self.name!r}: func and call must be callable")
        if self.unit_option is not None and self.unit_option not in self.options:
            raise MetricError(f"metric {self.name!r}: unit_option {self.unit_option!r} is not one of its options")
        if set(self.option_checks) != set(self.options):
            raise MetricError(
                f"metric {self.name!r}: option_checks must have one check per option; options: "
                f"{', '.join(self.options) or 'none'}; checks: {', '.join(self.option_checks) or 'none'}"
            )

    @property
    def options(self) -> dict[str, Any]:
        """Keyword-only options of ``func`` and their defaults (``random_state`` and ``memo`` excluded)."""
        return {
            p.name: p.default
            for p in inspect.signature(self.func).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in ("random_state", "memo")
        }

    def check_option(self, option: str, value: Any) -> Any:
        """``value`` if ``option`` is one of the metric's options and may take it.

        >>> from wefe_same.metrics.registry import METRICS
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

        >>> from wefe_same.metrics.registry import METRICS
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
        memo: Memo | None = None,
    ) -> MetricResult:
        """The metric on one subquery's arrays (``memo``: the call's remembered values,
        handed to a ``memo_call`` or to a ``func`` that takes it; the result is the same)."""
        kwargs = dict(options or {})
        if self.stochastic:
            kwargs["random_state"] = random_state
        if memo is not None and self.memo_call is not None:
            def call(t: Arrays, a: Arrays, **o: Any) -> MetricResult:
                return self.memo_call(memo, t, a, **o)  # type: ignore[misc]
        else:
            call = self.call
            if memo is not None and self.takes_memo:
                kwargs["memo"] = memo
        if self.origin is None or self.origin.builtin:
            return call(targets, attributes, **kwargs)
        try:
            out = call(targets, attributes, **kwargs)
        except Exception as err:  # a plugin's bug is this subquery's reason, never the run's traceback
            return MetricResult.undefined(f"{self.name} raised {type(err).__name__}: {one_line(str(err))}", {})
        return checked_result(self, out, targets, attributes)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled without its option checks (run before any work, in the calling process;
        they are often lambdas): every other field as it is, so ``func`` and ``call`` go by
        reference (module and qualified name) and must be importable there."""
        state = {f.name: getattr(self, f.name) for f in fields(self) if f.init and f.name != "option_checks"}
        return _unpickled, (state, tuple(self.option_checks))


def _has_keyword(func: Callable[..., Any], name: str) -> bool:
    try:
        parameter = inspect.signature(func).parameters.get(name)
    except (TypeError, ValueError):  # a callable without a signature
        return False
    return parameter is not None and parameter.kind is inspect.Parameter.KEYWORD_ONLY


def _checked_before(value: Any, option: str, metric: str) -> Any:
    """The option check of an unpickled spec: its value was checked before it was sent."""
    return value


def _unpickled(state: dict[str, Any], options: tuple[str, ...]) -> MetricSpec:
    return MetricSpec(**state, option_checks=dict.fromkeys(options, _checked_before))


#: Characters of an exception's message kept in a reason.
REASON_CHARS = 300


def one_line(text: str) -> str:
    """``text`` on one line, cut to :data:`REASON_CHARS` characters."""
    text = " ".join(text.split())
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS - 1] + "…"


def checked_result(spec: MetricSpec, out: Any, targets: Arrays, attributes: Arrays) -> MetricResult:
    """What a guarded metric returned, as a :class:`MetricResult`: a finite number or a
    result with NaN and a reason (anything else is NaN with the reason: the wrong type,
    the wrong shape, a non-finite value, per-word values of the wrong length)."""
    def bad(why: str) -> MetricResult:
        return MetricResult.undefined(f"{spec.name} returned {why}", {})

    if isinstance(out, MetricResult):
        if math.isinf(out.value):
            return bad(f"a non-finite value ({out.value})")
        if not out.word_values:
            return out
        if spec.word_role is None:
            return bad("per-word values, but its spec names no word_role (targets or attributes)")
        rows = sum(len(a) for a in (targets if spec.word_role == "targets" else attributes))
        for key, values in out.word_values.items():
            shape = np.shape(values)
            if shape != (rows,):
                return bad(f"per-word values {key!r} of shape {shape}, not ({rows},): one per {spec.word_role} word")
            if not np.issubdtype(np.asarray(values).dtype, np.number):
                return bad(f"per-word values {key!r} that are not numbers")
        return out
    if isinstance(out, (bool, np.bool_)) or not isinstance(out, (numbers.Real, np.ndarray)):
        return bad(f"{type(out).__name__}, not a number or a MetricResult")
    if isinstance(out, np.ndarray):
        if out.shape != ():
            return bad(f"an array of shape {out.shape}, not one number")
        if not np.issubdtype(out.dtype, np.number) or np.issubdtype(out.dtype, np.complexfloating):
            return bad(f"an array of {out.dtype}, not a number")
    value = float(out)
    if not math.isfinite(value):
        return bad(f"a non-finite value ({value})")
    return MetricResult(value)


@dataclass(frozen=True)
class MetricOrigin:
    """Where a metric's code comes from: recorded in the manifest, and its digest in the cache key.

    Attributes
    ----------
    module, qualname : str
        The function's import path (``module.qualname``).
    digest : str
        sha256 of the source of the spec's ``func`` and ``call`` (of their code objects
        when the source is not available): a changed function is scored again.
    package : str or None
        The distribution that declares the metric as an entry point (``wefe_same`` for the
        built-ins); None for a metric given to :func:`wefe_same.rank` directly.
    builtin : bool
        One of this package's own metrics (not guarded).
    """

    module: str
    qualname: str
    digest: str
    package: str | None = None
    builtin: bool = False

    @classmethod
    def of(cls, spec: MetricSpec, package: str | None = None, builtin: bool = False) -> MetricOrigin:
        func = spec.func
        parts: list[Any] = [func] if spec.call is func else [func, spec.call]
        parts += [part for part in (spec.prefit, spec.memo_call, spec.declare_memo) if part is not None]
        digest = hashlib.sha256()
        for part in parts:
            digest.update(code_text(part) + b"\0")
        return cls(getattr(func, "__module__", None) or "?", getattr(func, "__qualname__", None) or repr(func),
                   digest.hexdigest(), package, builtin)

    def manifest(self) -> dict[str, Any]:
        """The manifest's entry."""
        return {"module": self.module, "qualname": self.qualname, "sha256": self.digest, "package": self.package}


def code_text(obj: Any) -> bytes:
    """The source of a function (its code object's bytes and constants when the source is not
    available, as for a function typed into an interpreter), for :class:`MetricOrigin`'s digest."""
    target = obj.__call__ if not inspect.isroutine(obj) and callable(obj) else obj
    try:
        return inspect.getsource(target).encode()
    except (OSError, TypeError):
        code = getattr(target, "__code__", None)
        if code is None:
            return repr(target).encode()
        return code.co_code + repr(code.co_consts).encode() + repr(code.co_names).encode()


