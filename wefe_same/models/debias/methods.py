"""The variants ``SPEC+double-hard-debias``, ``SPEC+hsr-debias`` and ``SPEC+ran-debias``, each
with optional ``[key=value,...]`` options: their word lists (``queries/bolukbasi.toml``,
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

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource
from wefe_same.models.debias.double_hard import DoubleHardDebiasedSource
from wefe_same.models.debias.hsr import HSRDebiasedSource
from wefe_same.models.debias.options import DOUBLE_HARD_OPTIONS, HSR_OPTIONS, RAN_OPTIONS
from wefe_same.models.debias.ran import RANDebiasedSource
from wefe_same.models.specs import DOUBLE_HARD_DEBIAS, HSR_DEBIAS, RAN_DEBIAS
from wefe_same.query.files import load_queries
from wefe_same.validation import OptionSpec, check_declared

DOUBLE_HARD_SUFFIX, HSR_SUFFIX, RAN_SUFFIX = DOUBLE_HARD_DEBIAS, HSR_DEBIAS, RAN_DEBIAS


#: The values of the option ``flavour``: the authors' code (the default) or WEFE 0.4.1's.
FLAVOURS = ("authors", "wefe")

#: Each method's declared options (:mod:`.options`), by suffix.
OPTIONS: dict[str, dict[str, OptionSpec]] = {
    DOUBLE_HARD_SUFFIX: DOUBLE_HARD_OPTIONS, HSR_SUFFIX: HSR_OPTIONS, RAN_SUFFIX: RAN_OPTIONS,
}


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
    declared = OPTIONS[suffix]
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


#: Suffix → builder (base, name, options text) → source.
METHOD_VARIANTS: dict[str, Callable[[ModelSource, str, str], ModelSource]] = {
    DOUBLE_HARD_SUFFIX: double_hard_debiased,
    HSR_SUFFIX: hsr_debiased,
    RAN_SUFFIX: ran_debiased,
}
