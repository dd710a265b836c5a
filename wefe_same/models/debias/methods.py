"""The variants ``SPEC+double-hard-debias``, ``SPEC+hsr-debias`` and ``SPEC+ran-debias``, each
with optional ``[key=value,...]`` options: their word lists (``queries/bolukbasi.toml``,
``queries/debiasing.toml``), default parameters (the latter file) and option checks.

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
from wefe_same.models.debias.ran import RANDebiasedSource
from wefe_same.query.files import load_queries
from wefe_same.validation import OptionSpec, check_declared

DOUBLE_HARD_SUFFIX, HSR_SUFFIX, RAN_SUFFIX = "+double-hard-debias", "+hsr-debias", "+ran-debias"


def _all_zero(weights: tuple[float, ...]) -> str | None:
    return "all three weights are 0: no word would move, the variant would be its base" if not any(weights) else None


#: Each option's declared spec (:class:`~wefe_same.validation.OptionSpec`): its type, its
#: range, and the upper bounds that keep one variant within minutes on a 400k-word model.
OPTIONS: dict[str, dict[str, OptionSpec]] = {
    DOUBLE_HARD_SUFFIX: {
        "words": OptionSpec("int", low=1, high=50_000,
                            why="the 2 x words test words are clustered by k-means once per component"),
        "components": OptionSpec("int", low=1, high=100, why="each candidate component is one k-means run"),
        "vocab": OptionSpec("int", low=2, high=10**9),
        "seed": OptionSpec("int", low=0, high=2**32 - 1, why="k-means takes seeds below 2**32"),
    },
    HSR_SUFFIX: {
        "alpha": OptionSpec("number", low=0, low_open=True,
                            why="the ridge constant of Yang & Feng 2020; at 0 the regression fits every vector "
                                "and leaves rounding noise"),
    },
    RAN_SUFFIX: {
        "neighbours": OptionSpec("int", low=1, high=500,
                                 why="each batch of 256 words holds its neighbours' vectors in float64"),
        "theta": OptionSpec("number", low=-1e6, high=1e6),
        "weights": OptionSpec("numbers", count=3, low=0, high=1000, degenerate=_all_zero),
        "lr": OptionSpec("number", low=0, high=1, low_open=True,
                         why="Adam moves each coordinate of a unit vector by up to lr a step"),
        "epochs": OptionSpec("int", low=1, high=10_000, why="every word takes one Adam step per epoch; "
                                                            "10000 keeps a run within minutes"),
        "vocab": OptionSpec("int", low=2, high=10**9),
    },
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
    """The defaults of ``queries/debiasing.toml`` updated by the spec's ``options``.

    >>> method_parameters("+hsr-debias", "alpha=10")
    {'alpha': 10.0}
    """
    (lists,) = load_queries("debiasing")
    stem = {DOUBLE_HARD_SUFFIX: "double_hard", HSR_SUFFIX: "hsr", RAN_SUFFIX: "ran"}[suffix]
    defaults = dict(w.split("=", 1) for w in lists.word_set(f"{stem}_parameters").words)
    return check_declared(suffix, {**defaults, **parse_options(options)}, OPTIONS[suffix], ModelError)


def _bolukbasi() -> tuple[list[tuple[str, str]], list[tuple[str, str]], tuple[str, ...]]:
    (lists,) = load_queries("bolukbasi")

    def pairs(stem: str) -> list[tuple[str, str]]:
        return list(zip(lists.word_set(f"{stem}_female").words, lists.word_set(f"{stem}_male").words))

    return pairs("definitional"), pairs("equalize"), lists.word_set("gender_specific").words


def double_hard_debiased(base: ModelSource, name: str, options: str = "") -> ModelSource:
    """Wang et al. 2020 double-hard debias with the lists of bolukbasi.toml and debiasing.toml."""
    p = method_parameters(DOUBLE_HARD_SUFFIX, options)
    definitional, equalize, specific = _bolukbasi()
    (lists,) = load_queries("debiasing")
    a, b = lists.word_set("double_hard_representation").words
    return DoubleHardDebiasedSource(base, definitional=definitional, equalize_pairs=equalize,
                                    gender_specific=specific, representation=(a, b), words=p["words"],
                                    components=p["components"], vocab=p.get("vocab"),
                                    random_state=p.get("seed", 0), name=name)


def hsr_debiased(base: ModelSource, name: str, options: str = "") -> ModelSource:
    """Yang & Feng 2020 half-sibling regression with bolukbasi.toml's gender-specific words."""
    p = method_parameters(HSR_SUFFIX, options)
    _, _, specific = _bolukbasi()
    return HSRDebiasedSource(base, definitional=specific, alpha=p["alpha"],
                             lists="queries/bolukbasi.toml gender_specific", name=name)


def ran_debiased(base: ModelSource, name: str, options: str = "") -> ModelSource:
    """Kumar et al. 2020 RAN-Debias with bolukbasi.toml's pairs and gender-specific words."""
    p = method_parameters(RAN_SUFFIX, options)
    definitional, _, specific = _bolukbasi()
    return RANDebiasedSource(base, definitional=definitional, preserve=specific, neighbours=p["neighbours"],
                             theta=p["theta"], weights=p["weights"], lr=p["lr"], epochs=p["epochs"],
                             vocab=p.get("vocab"), lists="queries/bolukbasi.toml", name=name)


#: Suffix → builder (base, name, options text) → source.
METHOD_VARIANTS: dict[str, Callable[[ModelSource, str, str], ModelSource]] = {
    DOUBLE_HARD_SUFFIX: double_hard_debiased,
    HSR_SUFFIX: hsr_debiased,
    RAN_SUFFIX: ran_debiased,
}
