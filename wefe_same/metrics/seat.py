"""SEAT, the Sentence Encoder Association Test (May et al. 2019), as its authors' code and
bias-bench compute it: every sentence of a test file is an item of its set.

A SEAT test file (May et al. 2019's ``tests/*.jsonl``; bias-bench's ``data/seat/*.jsonl``) is
**one** JSON object read with ``json.load`` (not JSON Lines, whatever its suffix)::

    {"targ1": {"category": "...", "examples": ["sentence", ...]}, "targ2": ...,
     "attr1": ..., "attr2": ...}

bias-bench's runner (McGill-NLP/bias-bench, commit 291426aab926f78ecfc7bd040b531429ee8123e0,
``bias_bench/benchmark/seat/seat.py``) encodes each sentence alone: for a Hugging Face model
the mean of ``last_hidden_state`` over every token (specials included), then unit length
(``_encode``); ``sbert:`` models use their own pooling. Its ``weat.py`` then computes, over
sentences (X, Y targets; A, B attributes):

* s(w, A, B) = mean_a cos(w, a) − mean_b cos(w, b);
* effect size = [mean_{x∈X} s(x) − mean_{y∈Y} s(y)] / std_{w∈X∪Y} s(w), ``ddof=1``;
* the one-sided permutation p-value over equal splits of X ∪ Y, counting splits whose
  Σ_{X_i} s is ≥ the observed one: exact when C(2n, n) ≤ ``n_samples``, else sampled.

p-value conventions (``p_value=``):

* ``"tool"`` (default; DESIGN.md): exact #{t_i ≥ t}/C up to ``exact_limit`` splits, else
  (k + 1)/(N + 1) with k of N sampled splits at least as extreme (Phipson & Smyth 2010);
* ``"bias-bench"``: bias-bench's ``p_val_permutation_test``: exact when C(2n, n) ≤
  ``permutations``, else (1 + #{s_i ≥ s})/n over ``n = permutations`` "samples", of which the
  first is the observed split itself (so n − 1 are drawn). This is the same estimator as
  the tool's with N = n − 1 draws; what differs is the exact/sampled threshold and the
  count of draws. bias-bench compares statistics with exact float ``==`` for ties; both
  conventions here use the tool's tie tolerance (``TIE_RTOL``), which differs only when two
  splits' sums agree to ~1e-12 relative.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from wefe_same.errors import QueryError
from wefe_same.metrics._permutation import EXACT_LIMIT, PermutationTest, weat_permutation_test
from wefe_same.validation import check_choice, check_int

PValueConvention = Literal["tool", "bias-bench"]
P_VALUE_CONVENTIONS: tuple[PValueConvention, ...] = ("tool", "bias-bench")
#: The four sets of a SEAT test, in bias-bench's order.
SEAT_KEYS = ("targ1", "targ2", "attr1", "attr2")
#: bias-bench's default number of permutation samples (``SEATRunner(n_samples=100000)``).
BIAS_BENCH_SAMPLES = 100_000


@dataclass(frozen=True)
class SeatSet:
    """One set of a SEAT test: its category and its sentences (or words), in file order."""

    category: str
    examples: tuple[str, ...]


@dataclass(frozen=True)
class SeatTest:
    """A SEAT test file: two target sets and two attribute sets."""

    name: str
    targ1: SeatSet
    targ2: SeatSet
    attr1: SeatSet
    attr2: SeatSet

    def sets(self) -> tuple[SeatSet, SeatSet, SeatSet, SeatSet]:
        return (self.targ1, self.targ2, self.attr1, self.attr2)


def read_seat_file(path: str | Path) -> SeatTest:
    """Read a SEAT-format test file (one JSON object, see the module docstring).

    Repeated sentences within a set are kept once, as bias-bench's ``_encode`` keys its
    encodings by sentence (a dict) and so scores each distinct sentence once.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise QueryError(f"SEAT file {path}: cannot be read ({exc.strerror or exc})") from exc
    except json.JSONDecodeError as exc:
        raise QueryError(f"SEAT file {path}: not one JSON object ({exc.msg}, line {exc.lineno}); a SEAT file "
                         "is read whole with json.load, not as JSON Lines") from exc
    if not isinstance(data, dict):
        raise QueryError(f"SEAT file {path}: holds a {type(data).__name__}, not an object with targ1, targ2, "
                         "attr1, attr2")
    missing = [k for k in SEAT_KEYS if k not in data]
    if missing:
        raise QueryError(f"SEAT file {path}: lacks {', '.join(missing)} (needs targ1, targ2, attr1, attr2)")
    sets = []
    for key in SEAT_KEYS:
        entry = data[key]
        examples = entry.get("examples") if isinstance(entry, dict) else None
        if not isinstance(examples, list) or not examples or not all(isinstance(e, str) and e.strip()
                                                                     for e in examples):
            raise QueryError(f"SEAT file {path}: {key}.examples must be a non-empty list of non-empty strings")
        category = entry.get("category", key)
        sets.append(SeatSet(str(category), tuple(dict.fromkeys(examples))))
    if len(sets[0].examples) != len(sets[1].examples):
        raise QueryError(f"SEAT file {path}: targ1 has {len(sets[0].examples)} distinct examples and targ2 "
                         f"{len(sets[1].examples)}; SEAT's permutation test needs targets of equal size")
    return SeatTest(path.stem, *sets)


@dataclass(frozen=True)
class SeatResult:
    """SEAT's effect size and permutation p-value, with how the p-value was made."""

    effect_size: float
    p_value: float
    n_splits: int
    method: Literal["exact", "sampled", "none"]


def _unit(M: np.ndarray) -> np.ndarray:
    M = np.asarray(M, dtype=np.float64)
    return M / np.linalg.norm(M, axis=1, keepdims=True)


def seat_associations(X: np.ndarray, Y: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """s(w, A, B) for the rows of X then Y (any lengths; rows are made unit length).

    >>> seat_associations(np.eye(2)[:1], np.eye(2)[1:], np.eye(2)[:1], np.eye(2)[1:])
    array([ 1., -1.])
    """
    W = _unit(np.vstack([X, Y]))
    A, B = _unit(A), _unit(B)
    return (W @ A.T).mean(axis=1) - (W @ B.T).mean(axis=1)


def seat_effect_size(s: np.ndarray, n_x: int) -> float:
    """[mean s(X) − mean s(Y)] / std(s(X ∪ Y), ddof=1), bias-bench ``weat.effect_size``."""
    s = np.asarray(s, dtype=np.float64)
    return float((s[:n_x].mean() - s[n_x:].mean()) / s.std(ddof=1))


def seat_test(X: np.ndarray, Y: np.ndarray, A: np.ndarray, B: np.ndarray, *, permutations: int = BIAS_BENCH_SAMPLES,
              p_value: PValueConvention = "tool", exact_limit: int = EXACT_LIMIT,
              random_state: int | np.random.Generator | None = 0) -> SeatResult:
    """SEAT on sentence vectors (rows): effect size and one-sided permutation p-value.

    ``p_value="bias-bench"`` follows ``weat.p_val_permutation_test`` (module docstring):
    exact when C(|X|+|Y|, |X|) ≤ ``permutations`` (``exact_limit`` is then ignored), else
    ``permutations − 1`` drawn splits plus the observed one.

    >>> r = seat_test(np.eye(3)[[0, 0]], np.eye(3)[[1, 1]], np.eye(3)[[0]], np.eye(3)[[1]], permutations=10)
    >>> round(r.effect_size, 6), r.p_value, r.method
    (1.732051, 0.16666666666666666, 'exact')
    """
    check_choice(p_value, "p_value", "seat", P_VALUE_CONVENTIONS)
    check_int(permutations, "permutations", "seat", minimum=0)
    n_x = len(X)
    if n_x != len(Y):
        raise QueryError(f"seat: target sets of {n_x} and {len(Y)} items; SEAT needs equal sizes")
    s = seat_associations(X, Y, A, B)
    effect = seat_effect_size(s, n_x)
    if p_value == "bias-bench":
        if permutations == 0:
            test = PermutationTest(math.nan, 0, "none")
        elif math.comb(2 * n_x, n_x) <= permutations:
            test = weat_permutation_test(s, n_x, permutations=permutations, exact_limit=math.comb(2 * n_x, n_x))
        else:
            test = weat_permutation_test(s, n_x, permutations=max(permutations - 1, 1), exact_limit=0,
                                         random_state=random_state)
            test = PermutationTest(test.p_value, permutations, test.method)
    else:
        test = weat_permutation_test(s, n_x, permutations=permutations, exact_limit=exact_limit,
                                     random_state=random_state)
    return SeatResult(effect, test.p_value, test.n_splits, test.method)


def encode_hf_sentences(model, tokenizer, sentences) -> np.ndarray:
    """bias-bench's SEAT encoding for a Hugging Face model, one row per sentence.

    Each sentence is tokenised alone (specials added as the tokenizer does), run through
    the model, ``last_hidden_state`` averaged over all its tokens, specials included, and
    made unit length (bias-bench ``seat.py`` ``_encode``, following May et al. 2019).
    """
    import torch  # lazy: heavy

    rows = []
    with torch.no_grad():
        for text in sentences:
            inputs = tokenizer(text, return_tensors="pt")
            out = model(**inputs)
            enc = out["last_hidden_state"].mean(dim=1).reshape(-1).numpy()
            rows.append(enc / np.linalg.norm(enc))  # in the model's precision, as bias-bench
    return np.vstack(rows).astype(np.float64)
