"""``hashvec:DIM[,salt=TEXT]``: a model kind whose vector for a word is drawn from a hash of it.

Every string has a vector (an open vocabulary, like an encoder): the standard normal draw of
a generator seeded with the SHA-256 of ``salt`` and the word. The same word gives the same
vector in every process and on every machine, and no file is read, so it is the smallest
model kind that shows the protocol: a :class:`~wefe_same.models.base.ModelSource` subclass
with ``lookup``, ``describe``, ``identity`` and declared ``spec_options``, declared in
``pyproject.toml``::

    [project.entry-points."wefe_same.models"]
    hashvec = "wefe_same_example.model_kind:HashVectors"

then ``wefe-same rank --models hashvec:50 hashvec:50,salt=b``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from types import MappingProxyType
from typing import Any

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource
from wefe_same.validation import OptionSpec

#: Dimensions beyond this are refused: every word is one draw of DIM numbers.
MAX_DIM = 4096


class HashVectors(ModelSource):
    """Deterministic vectors from a hash of each word (hashvec:DIM[,salt=TEXT])."""

    open_vocabulary = True
    spec_options = MappingProxyType({"salt": OptionSpec("text", high=100, why="mixed into each word's hash")})

    def __init__(self, name: str, location: str, salt: str = "") -> None:
        text = location.strip()
        if not text.isdigit() or not 1 <= int(text) <= MAX_DIM:
            raise ModelError(f"model {name!r}: hashvec:DIM needs a dimension in [1, {MAX_DIM}], got {location!r}")
        self.name = name
        self.dim = int(text)
        self.salt = salt

    def vector(self, word: str) -> np.ndarray:
        """The word's vector: ``dim`` standard normal numbers seeded by SHA-256(salt NUL word)."""
        digest = hashlib.sha256(f"{self.salt}\0{word}".encode()).digest()
        return np.random.default_rng(int.from_bytes(digest[:16], "little")).standard_normal(self.dim)

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        return {w: self.vector(w) for w in words}

    def identity(self) -> dict[str, Any]:
        # Everything that decides the vectors: the cache key of this model.
        return {"kind": "hashvec", "algorithm": "sha256-normal-1", "dim": self.dim, "salt": self.salt}

    def describe(self) -> dict[str, str]:
        return {"kind": "hashvec", "dim": str(self.dim), "salt": self.salt}
