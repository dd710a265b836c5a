"""The options of the debiasing methods, declared once (:class:`~wefe_same.validation.OptionSpec`):
their type, range, the upper bounds that keep one variant within minutes on a 400k-word
model, and the values refused as degenerate, with the reason. ``SPEC+ran-debias[lr=…]``
(:mod:`.methods`) and the sources' own constructors check values against the same specs.

>>> check_parameters("RANDebiasedSource", RAN_OPTIONS, lr=0.01, epochs=300)
{'lr': 0.01, 'epochs': 300}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wefe_same.validation import OptionSpec


def _all_zero(weights: tuple[float, ...]) -> str | None:
    return "all three weights are 0: no word would move, the variant would be its base" if not any(weights) else None


#: ``flavour``: the authors' code (the default) or WEFE 0.4.1's choices (docs/guide/debiasing.md).
_FLAVOUR = OptionSpec("choice", choices=("authors", "wefe"))

DOUBLE_HARD_OPTIONS: dict[str, OptionSpec] = {
    "flavour": _FLAVOUR,
    "words": OptionSpec("int", low=1, high=50_000,
                        why="the 2 x words test words are clustered by k-means once per component"),
    "components": OptionSpec("int", low=1, high=100, why="each candidate component is one k-means run"),
    "vocab": OptionSpec("int", low=2, high=10**9),
    "pool": OptionSpec("int", low=2, high=10**9, why="the first words of the vocabulary the test words come from"),
    "seed": OptionSpec("int", low=0, high=2**32 - 1, why="k-means takes seeds below 2**32"),
}
HSR_OPTIONS: dict[str, OptionSpec] = {
    "alpha": OptionSpec("number", low=0, low_open=True,
                        why="the ridge constant of Yang & Feng 2020; at 0 the regression fits every vector "
                            "and leaves rounding noise"),
}
RAN_OPTIONS: dict[str, OptionSpec] = {
    "flavour": _FLAVOUR,
    "neighbours": OptionSpec("int", low=1, high=500,
                             why="each batch of 256 words holds its neighbours' vectors in float64"),
    "candidates": OptionSpec("int", low=1, high=1000,
                             why="the nearest words searched for the neighbours to repel, per word"),
    "theta": OptionSpec("number", low=-1e6, high=1e6),
    "weights": OptionSpec("numbers", count=3, low=0, high=1000, degenerate=_all_zero),
    "lr": OptionSpec("number", low=0, high=1, low_open=True,
                     why="Adam moves each coordinate of a unit vector by up to lr a step"),
    "epochs": OptionSpec("int", low=1, high=10_000,
                         why="every word takes one Adam step per epoch; 10000 keeps a run within minutes"),
    "vocab": OptionSpec("int", low=2, high=10**9),
}


def check_parameters(func: str, declared: Mapping[str, OptionSpec], **values: Any) -> dict[str, Any]:
    """Each keyword checked by its declared spec, as a parameter of ``func`` (None: left out)."""
    return {k: declared[k].check_parameter(v, k, func) for k, v in values.items() if v is not None}
