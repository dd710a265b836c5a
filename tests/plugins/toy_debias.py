"""A debiasing method as a plugin declares one (docs/extending.md, "Your own debiasing method"),
for tests/plugins/test_debias_plugin.py, registered there through the entry-point group
``wefe_same.debias``: ``SPEC+toy-debias[strength=S]`` removes S times each vector's component
along the base's he − she direction."""

from __future__ import annotations

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models import DebiasMethod, ModelSource
from wefe_same.models.debias.methods import parse_options
from wefe_same.validation import OptionSpec, check_declared

OPTIONS = {"strength": OptionSpec("number", low=0, high=1)}


class ToyDebiased(ModelSource):
    """``base`` with ``strength`` × its he − she component taken off every vector."""

    def __init__(self, base: ModelSource, name: str, strength: float) -> None:
        self.base, self.name, self.strength = base, name, strength

    def lookup(self, words):
        got = self.base.lookup({*words, "he", "she"})
        if "he" not in got or "she" not in got:
            raise ModelError(f"{self.name}: the base has no 'he' or 'she' to debias by")
        direction = got["he"] - got["she"]
        direction = direction / np.linalg.norm(direction)
        return {w: v - self.strength * (v @ direction) * direction for w, v in got.items() if w in words}

    def describe(self):
        return {"kind": "toy-debias", "base": self.base.name, "strength": f"{self.strength:g}"}


def toy_debiased(base: ModelSource, name: str, options: str) -> ModelSource:
    given = check_declared("+toy-debias", {"strength": "1", **parse_options(options)}, OPTIONS, ModelError)
    return ToyDebiased(base, name, given["strength"])


METHOD = DebiasMethod("+toy-debias", toy_debiased, "gender: the he - she component taken off (a test's toy)",
                      "none (a test plugin)", options=OPTIONS, makes=(ToyDebiased,), options_shown="strength=1")
#: Not a DebiasMethod: its entry point is refused with one warning.
NOT_A_METHOD = 42
