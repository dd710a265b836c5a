"""Cache keys: sha256 of everything that decides an entry's content, never a model's name alone.

- vectors: the source's ``identity()`` (file stats, package version, encoder settings: no
  model byte is read to compute it), the sorted words and a digest of :data:`VECTORS_CODE`;
- scores: the vectors key, the table's fingerprint (what the metrics actually saw), the
  model's name and ``plan.scoring_key()`` (words, options, seed, package and code version);
- quality: the source's identity, the model's name, each benchmark's name, kind and file
  hash, ``analogy_vocab`` and a digest of :data:`QUALITY_CODE`;
- lipstick: the base's and the variant's identities, the pair's names, the settings, the
  seed, the excluded words, the fitting libraries' versions and a digest of :data:`LIPSTICK_CODE`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from wefe_same.errors import CacheError
from wefe_same.run.cache.codec import FORMAT_VERSION
from wefe_same.versions import code_digest

#: Modules shared by every layer that the readers and the quality code import.
SHARED_CODE = ("cachedir.py", "errors.py", "interrupts.py", "plugins.py", "processes.py", "validation.py",
               "versions.py")
#: The code that reads a model's vectors (the source, then ``build_table``) and every module
#: it imports within the package (tests/run/test_cache.py checks the import closure).
VECTORS_CODE = ("models", "metrics", "query/__init__.py", "query/sets.py", "query/files.py", "scoring/__init__.py",
                "scoring/vectors.py", "scoring/usable.py",
                *SHARED_CODE)
#: The code that turns a model into its quality rows, and every module it imports.
QUALITY_CODE = ("quality", "run/evaluators/quality.py", *VECTORS_CODE)
#: The code that turns a language model into its likelihood tables, and every module it imports.
LIKELIHOOD_CODE = ("likelihood", "run/evaluators/likelihood.py", *VECTORS_CODE)
#: The code that turns a base and its debiased variant into lipstick rows, and every module it imports.
LIPSTICK_CODE = ("analysis/__init__.py", "analysis/lipstick.py", "run/evaluators/lipstick.py", *VECTORS_CODE)


def digest(obj: Any) -> str:
    """sha256 of ``obj`` as canonical JSON."""
    text = json.dumps(obj, sort_keys=True, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _identity_key(identity: Mapping[str, Any], body: Mapping[str, Any]) -> str:
    try:
        return digest({"format": FORMAT_VERSION, "identity": identity, **body})
    except (TypeError, ValueError) as err:
        raise CacheError(f"a model identity must be a JSON-able dict, got {identity!r} ({err})") from None


def vectors_key(identity: Mapping[str, Any], words: Iterable[str]) -> str:
    """The key of a model's vectors entry: its identity, the sorted words, the reader code.

    ``identity`` must be JSON-able (a :class:`CacheError` otherwise: a source bug).

    >>> vectors_key({"kind": "toy"}, ["b", "a"]) == vectors_key({"kind": "toy"}, ["a", "b", "a"])
    True
    """
    return _identity_key(identity, {"words": sorted(set(words)), "code": code_digest(*VECTORS_CODE)})


def scores_key(vectors: str, fingerprint: str, name: str, scoring: str) -> str:
    """The key of a scores entry: the vectors entry it was computed from, the table's
    fingerprint, the model's name (it is in every table) and ``plan.scoring_key()``."""
    return digest({"format": FORMAT_VERSION, "vectors": vectors, "fingerprint": fingerprint,
                   "name": name, "scoring": scoring})


def likelihood_key(identity: Mapping[str, Any], name: str, datasets: Sequence[tuple[str, str]], scoring: str) -> str:
    """The key of a model's likelihood tables: its identity and name, each dataset as
    (benchmark, sha256 of its file), and the scoring."""
    return _identity_key(identity, {"name": name, "likelihood": [list(d) for d in datasets], "scoring": scoring,
                                    "code": code_digest(*LIKELIHOOD_CODE)})


def quality_key(identity: Mapping[str, Any], name: str, benchmarks: Sequence[tuple[str, str, str]],
                analogy_vocab: int) -> str:
    """The key of a model's quality rows: its identity and name, each benchmark as
    (name, kind, sha256 of its file), and the number of analogy candidates."""
    return _identity_key(identity, {"name": name, "benchmarks": [list(b) for b in benchmarks],
                                    "analogy_vocab": analogy_vocab, "code": code_digest(*QUALITY_CODE)})


def lipstick_key(base: Mapping[str, Any], variant: Mapping[str, Any], pair: Sequence[str],
                 settings: Mapping[str, Any], seed: int, excluded: Iterable[str], libraries: Mapping[str, str]) -> str:
    """The key of one (base, variant) pair's lipstick rows: both identities, the pair's
    (base, variant, method) names (they are in the rows), the settings, the seed, the
    sorted words left out of the tests and the versions of the ``libraries`` that fit
    (k-means and the SVM)."""
    return _identity_key(base, {"variant": variant, "pair": list(pair), "lipstick": dict(settings), "seed": seed,
                                "excluded": digest(sorted(set(excluded))), "libraries": dict(libraries),
                                "code": code_digest(*LIPSTICK_CODE)})
