"""The built-in debiasing methods, one :class:`~wefe_same.models.debias.registry.DebiasMethod`
each (:data:`BUILTIN_METHODS`), and every method by suffix, the plugins' included
(:func:`debias_methods`).

``SPEC+hard-debias``, ``+debias-religion`` and ``+debias-race`` take no options;
``SPEC+double-hard-debias``, ``SPEC+hsr-debias`` and ``SPEC+ran-debias`` take optional
``[key=value,...]`` options: their word lists (``queries/bolukbasi.toml``,
``queries/debiasing.toml``), default parameters (the latter file) and option checks.

Double-hard and RAN take ``flavour=authors`` (the default: the authors' code, with the
lists it uses, from ``queries/debiasing.toml``) or ``flavour=wefe`` (WEFE 0.4.1's
parameters with debiaswe's lists from ``queries/bolukbasi.toml``; for double-hard WEFE's
output itself, with the ``ignore`` list its users pass, debiaswe's full gender-specific
list, ``queries/debiasing.toml`` ``double_hard_wefe_gender_specific``).

>>> parse_options("words=500, components=3")
{'words': '500', 'components': '3'}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wefe_same.errors import ModelError, short_list
from wefe_same.models.base import ModelSource
from wefe_same.models.debias.bolukbasi import HardDebiasedSource
from wefe_same.models.debias.double_hard import DoubleHardDebiasedSource
from wefe_same.models.debias.hsr import HSRDebiasedSource
from wefe_same.models.debias.manzini import MulticlassHardDebiasedSource, manzini_debiased
from wefe_same.models.debias.options import DOUBLE_HARD_OPTIONS, HSR_OPTIONS, RAN_OPTIONS
from wefe_same.models.debias.ran import RANDebiasedSource
from wefe_same.models.debias.registry import DebiasMethod, plugin_methods
from wefe_same.query.files import load_queries
from wefe_same.validation import check_declared

HARD_SUFFIX, RELIGION_SUFFIX, RACE_SUFFIX = "+hard-debias", "+debias-religion", "+debias-race"
DOUBLE_HARD_SUFFIX, HSR_SUFFIX, RAN_SUFFIX = "+double-hard-debias", "+hsr-debias", "+ran-debias"


#: The values of the option ``flavour``: the authors' code (the default) or WEFE 0.4.1's.
FLAVOURS = ("authors", "wefe")



def parse_options(text: str) -> dict[str, str]:
    """``"a=1,b=2"`` → {"a": "1", "b": "2"} (spaces around items ignored)."""
    out: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ModelError(f"model option {item!r} is not KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def method_parameters(suffix: str, options: str = "") -> dict[str, Any]:
    """The defaults of ``queries/debiasing.toml`` (of the flavour the options name, else the
    authors') updated by the spec's ``options``.

    >>> method_parameters("+hsr-debias", "alpha=10")
    {'alpha': 10.0}
    >>> method_parameters("+ran-debias", "flavour=wefe")["weights"]
    (0.33, 0.33, 0.33)
    """
    (lists,) = load_queries("debiasing")
    stem = {DOUBLE_HARD_SUFFIX: "double_hard", HSR_SUFFIX: "hsr", RAN_SUFFIX: "ran"}[suffix]
    given = parse_options(options)
    declared = debias_method(suffix).options
    flavour = declared["flavour"].check(suffix, "flavour", given["flavour"], ModelError) if "flavour" in given \
        else "authors"
    name = f"{stem}_wefe_parameters" if flavour == "wefe" else f"{stem}_parameters"
    defaults = dict(w.split("=", 1) for w in lists.word_set(name).words)
    return check_declared(suffix, {**defaults, **given}, declared, ModelError)


def _pairs(file: str, stem: str) -> list[tuple[str, str]]:
    (lists,) = load_queries(file)
    return list(zip(lists.word_set(f"{stem}_female").words, lists.word_set(f"{stem}_male").words))


def _bolukbasi() -> tuple[list[tuple[str, str]], list[tuple[str, str]], tuple[str, ...]]:
    (lists,) = load_queries("bolukbasi")
    return (_pairs("bolukbasi", "definitional"), _pairs("bolukbasi", "equalize"),
            lists.word_set("gender_specific").words)


def double_hard_debiased(base: ModelSource, name: str, options: str = "") -> ModelSource:
    """Wang et al. 2020 double-hard debias with the lists of debiasing.toml (flavour=authors:
    the notebook's pairs and gender-specific words) or, for flavour=wefe, debiaswe's pairs
    (bolukbasi.toml) and the list WEFE's users pass as ``ignore``
    (``fetch_debiaswe()["gender_specific"]``, debiasing.toml ``double_hard_wefe_gender_specific``)."""
    p = method_parameters(DOUBLE_HARD_SUFFIX, options)
    definitional, equalize, specific = _bolukbasi()
    (lists,) = load_queries("debiasing")
    source = "queries/bolukbasi.toml"
    if p["flavour"] == "wefe" and "pool" in p:
        raise ModelError(f"{DOUBLE_HARD_SUFFIX} option pool applies to flavour=authors only (WEFE ranks every word)")
    if p["flavour"] == "authors":
        definitional = _pairs("debiasing", "double_hard_definitional")
        specific = lists.word_set("double_hard_gender_specific").words
        source = "queries/debiasing.toml double_hard_*, queries/bolukbasi.toml equalize"
    else:
        # WEFE's ignore list: fetch_debiaswe()["gender_specific"] (debiaswe's full list).
        specific = lists.word_set("double_hard_wefe_gender_specific").words
        source = "queries/bolukbasi.toml definitional, queries/debiasing.toml double_hard_wefe_gender_specific"
    a, b = lists.word_set("double_hard_representation").words
    return DoubleHardDebiasedSource(base, definitional=definitional, equalize_pairs=equalize,
                                    gender_specific=specific, representation=(a, b), words=p["words"],
                                    components=p["components"], vocab=p.get("vocab"), pool=p.get("pool"),
                                    random_state=p["seed"], flavour=p["flavour"], lists=source, name=name)


def hsr_debiased(base: ModelSource, name: str, options: str = "") -> ModelSource:
    """Yang & Feng 2020 half-sibling regression with bolukbasi.toml's gender-specific words."""
    p = method_parameters(HSR_SUFFIX, options)
    _, _, specific = _bolukbasi()
    return HSRDebiasedSource(base, definitional=specific, alpha=p["alpha"],
                             lists="queries/bolukbasi.toml gender_specific", name=name)


def ran_debiased(base: ModelSource, name: str, options: str = "") -> ModelSource:
    """Kumar et al. 2020 RAN-Debias: the pairs of debiasing.toml (flavour=authors, the authors'
    get_g) or bolukbasi.toml (flavour=wefe); bolukbasi.toml's gender-specific words are kept."""
    p = method_parameters(RAN_SUFFIX, options)
    definitional, _, specific = _bolukbasi()
    lists = "queries/bolukbasi.toml"
    if p["flavour"] == "authors":
        definitional = _pairs("debiasing", "ran_definitional")
        lists = "queries/debiasing.toml ran_definitional, queries/bolukbasi.toml gender_specific"
    return RANDebiasedSource(base, definitional=definitional, preserve=specific, neighbours=p["neighbours"],
                             candidates=p["candidates"], theta=p["theta"], weights=p["weights"], lr=p["lr"],
                             epochs=p["epochs"], vocab=p.get("vocab"), flavour=p["flavour"], lists=lists,
                             name=name)


def hard_debiased(base: ModelSource, name: str, options: str = "") -> ModelSource:
    """Bolukbasi et al.'s hard debiasing with the lists of ``queries/bolukbasi.toml``."""
    definitional, equalize, specific = _bolukbasi()
    return HardDebiasedSource(base, definitional=definitional, equalize_pairs=equalize, gender_specific=specific,
                              name=name)


def _multiclass(group: str) -> Callable[[ModelSource, str, str], ModelSource]:
    def build(base: ModelSource, name: str, options: str = "") -> ModelSource:
        return manzini_debiased(base, group, name=name)  # type: ignore[arg-type]

    build.__doc__ = f"Manzini et al.'s multiclass hard debiasing with the {group} lists of ``queries/manzini.toml``."
    return build


#: The built-in methods, in the order listings show them.
BUILTIN_METHODS: tuple[DebiasMethod, ...] = (
    DebiasMethod(HARD_SUFFIX, hard_debiased, "gender hard debiasing (Bolukbasi et al. 2016; queries/bolukbasi.toml)",
                 "Bolukbasi et al. 2016 (their debiaswe)", makes=(HardDebiasedSource,)),
    DebiasMethod(RELIGION_SUFFIX, _multiclass("religion"),
                 "religion multiclass hard debiasing (Manzini et al. 2019; queries/manzini.toml)",
                 "Manzini et al. 2019", group="religion",
                 makes=(MulticlassHardDebiasedSource,)),
    DebiasMethod(RACE_SUFFIX, _multiclass("race"),
                 "race multiclass hard debiasing (Manzini et al. 2019; queries/manzini.toml)",
                 "Manzini et al. 2019", group="race",
                 makes=(MulticlassHardDebiasedSource,)),
    DebiasMethod(DOUBLE_HARD_SUFFIX, double_hard_debiased,
                 "gender double-hard debiasing (Wang et al. 2020; queries/debiasing.toml)",
                 "Wang et al. 2020 (their code uvavision/Double-Hard-Debias; flavour=wefe: WEFE 0.4.1)",
                 options=DOUBLE_HARD_OPTIONS, makes=(DoubleHardDebiasedSource,),
                 options_shown="flavour=authors,words=1000,components=20,pool=50000,vocab=N,seed=1"),
    DebiasMethod(HSR_SUFFIX, hsr_debiased, "gender half-sibling regression (Yang & Feng 2020; queries/debiasing.toml)",
                 "Yang & Feng 2020 (as WEFE 0.4.1's HalfSiblingRegression)", options=HSR_OPTIONS,
                 makes=(HSRDebiasedSource,), options_shown="alpha=60"),
    DebiasMethod(RAN_SUFFIX, ran_debiased,
                 "gender repulsion-attraction-neutralization (Kumar et al. 2020; queries/debiasing.toml)",
                 "Kumar et al. 2020 (their code vaibkumr/RAN-Debias; flavour=wefe: WEFE 0.4.1)", options=RAN_OPTIONS,
                 makes=(RANDebiasedSource,),
                 options_shown="flavour=authors,neighbours=100,candidates=200,theta=0.05,weights=0.125/0.75/0.75,"
                               "lr=0.01,epochs=300,vocab=N"),
)


def debias_methods() -> dict[str, DebiasMethod]:
    """Every method by suffix: the built-in ones in their order, then the installed plugins'."""
    return {**{m.suffix: m for m in BUILTIN_METHODS}, **{m.suffix: m for m in plugin_methods().values()}}


def debias_method(suffix: str) -> DebiasMethod:
    """The method of ``suffix`` (``"+hsr-debias"``), or a :class:`ModelError` listing them."""
    methods = debias_methods()
    if suffix not in methods:
        raise ModelError(f"no debiasing method {suffix!r} (a plugin that failed to load?); methods: "
                         + short_list(list(methods)))
    return methods[suffix]


def made_from(source: ModelSource) -> tuple[ModelSource, str] | None:
    """(base, suffix) of a debiased source object that a method makes (by its exact class;
    a class two methods share names its method by its ``variant``); None for any other source."""
    for method in debias_methods().values():
        if type(source) in method.makes and getattr(source, "variant", method.suffix) == method.suffix:
            return source.base, method.suffix  # type: ignore[attr-defined]
    return None
