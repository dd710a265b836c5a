"""Repulsion-attraction-neutralization debiasing (RAN-Debias, Kumar et al. 2020) as a model variant.

Every word w outside the preserve set (gender-specific words) gets a new unit vector w_d
that minimises, from w_d = w (unit vectors throughout),

    F(w_d) = λ1 F_r + λ2 F_a + λ3 F_n,
    F_r = Σ_{n ∈ S} |cos(w_d, n)| / |S|      (repel the biased neighbours S),
    F_a = |cos(w_d, w) − 1| / 2              (stay close to w),
    F_n = |w_d · g|                          (no component along the gender direction g),

S being the first ``neighbours`` of w's ``candidates`` nearest words whose indirect bias
β(n, w) = (n·w − cos(n⊥, w⊥)) / n·w reaches θ (⊥: the part orthogonal to g); g is the
first principal component of the centred, unit definitional pairs. The minimum is found
by Adam (PyTorch's update rule, lr, ``epochs`` steps) on the analytic gradient, in
float64 with numpy. Each word's problem depends only on the base's vectors, so lookups
are lazy; the neighbours come from one blocked pass over the vocabulary
(:func:`.vocab.nearest`).

Two flavours (docs/guide/debiasing.md gives each choice's source):

- ``"authors"`` (default), the authors' code (vaibkumr/RAN-Debias): 200 candidates
  counting the word itself (``make_neighbours.py``), the first 100 with β ≥ θ repelled
  (``RANDebias.py``), F_n a dot product as in their ``ran_objective``, weights 1/8, 6/8,
  6/8 (``config.ini``'s 1/8, 6/8, 1/8 with the code's λ2 on F_n).
- ``"wefe"``, WEFE 0.4.1's ``RepulsionAttractionNeutralization``: the 100 nearest other
  words, those with β > θ repelled, weights 0.33 each, F_n a dot product too.

The paper writes F_n = |cos(w_d, g)|; ``neutralization="cosine"`` gives it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import cached_property
from typing import Any, Literal

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource, as_source
from wefe_same.models.debias.linalg import _lists_sha256, gender_direction, known_pairs
from wefe_same.models.debias.options import RAN_OPTIONS, check_parameters
from wefe_same.models.debias.vocab import blocks, nearest, read_vocabulary, unit_rows

Pair = tuple[str, str]
DIVERGED = ("{name}: Adam diverged (non-finite vectors) with lr={lr:g} and weights={weights}; "
            "give a smaller lr or smaller weights")
#: Words optimised together: 256 × 100 neighbours × 300 d float64 is 61 MB.
BATCH = 256
#: The defaults of the authors' code (``config.ini`` and ``RANDebias.py``); see the module docstring.
AUTHORS_WEIGHTS = (0.125, 0.75, 0.75)


def indirect_bias(neighbours: np.ndarray, w: np.ndarray, g: np.ndarray) -> np.ndarray:
    """β(n, w) = (n·w − cos(n⊥, w⊥)) / (n·w) for unit rows n of ``neighbours`` (Bolukbasi et al. 2016).

    >>> g = np.array([1.0, 0, 0]); w = np.array([0.6, 0.8, 0])
    >>> indirect_bias(np.array([[0.6, 0, 0.8]]), w, g).round(3).tolist()   # shared only along g
    [1.0]
    """
    dots = neighbours @ w
    n_perp = neighbours - np.outer(neighbours @ g, g)
    w_perp = w - (w @ g) * g
    with np.errstate(invalid="ignore", divide="ignore"):
        cos_perp = (n_perp @ w_perp) / (np.linalg.norm(n_perp, axis=1) * np.linalg.norm(w_perp))
        return (dots - cos_perp) / dots


def repulsion_sets(bias: np.ndarray, theta: float, neighbours: int, *, inclusive: bool) -> np.ndarray:
    """Which candidates are repelled: the first ``neighbours`` of each row whose indirect
    bias reaches ``theta`` (``inclusive``: β ≥ θ, the authors' code; else β > θ, WEFE's).

    >>> repulsion_sets(np.array([[0.2, 0.01, 0.05, 0.3]]), 0.05, 2, inclusive=True).tolist()
    [[True, False, True, False]]
    """
    with np.errstate(invalid="ignore"):
        mask = bias >= theta if inclusive else bias > theta
    return mask & (np.cumsum(mask, axis=1) <= neighbours)


def ran_optimize(w: np.ndarray, repulsion: np.ndarray, mask: np.ndarray, g: np.ndarray, *,
                 weights: Sequence[float] = AUTHORS_WEIGHTS, lr: float = 0.01, epochs: int = 300,
                 neutralization: Literal["cosine", "dot"] = "dot") -> np.ndarray:
    """Minimise F from w_d = w with Adam; return the unit w_d.

    Parameters
    ----------
    w : ndarray, shape (q, d)
        Unit vectors of q words.
    repulsion : ndarray, shape (q, r, d)
        Unit vectors of each word's repulsion set, padded.
    mask : ndarray of bool, shape (q, r)
        Which of the r slots hold a repulsion word (F_r = 0 for an empty set).
    g : ndarray, shape (d,)
        Unit gender direction.
    """
    l1, l2, l3 = (float(x) for x in weights)
    x = np.array(w, dtype=np.float64)
    m, v = np.zeros_like(x), np.zeros_like(x)
    count = mask.sum(axis=1)
    share = np.where(count > 0, 1.0 / np.maximum(count, 1), 0.0)[:, None]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    for t in range(1, epochs + 1):
        norm = np.linalg.norm(x, axis=1, keepdims=True)
        xh = x / norm
        # ∂cos(x, n)/∂x = (n − cos · x̂) / ‖x‖ for a unit n; sign(0) = 0 as torch's |·|.
        c = np.matmul(repulsion, xh[:, :, None])[:, :, 0]
        s = np.sign(c) * mask
        grad = l1 * share * (np.matmul(s[:, None, :], repulsion)[:, 0, :] - (s * c).sum(axis=1, keepdims=True) * xh)
        cw = (xh * w).sum(axis=1, keepdims=True)
        grad += l2 / 2 * np.sign(cw - 1) * (w - cw * xh)
        if neutralization == "dot":
            grad = grad / norm + l3 * np.sign(x @ g)[:, None] * g
        else:
            cg = (xh @ g)[:, None]
            grad = (grad + l3 * np.sign(cg) * (g - cg * xh)) / norm
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        # torch.optim.Adam: p -= lr / (1 − β1^t) · m / (√v / √(1 − β2^t) + ε)
        x = x - lr / (1 - beta1 ** t) * m / (np.sqrt(v) / np.sqrt(1 - beta2 ** t) + eps)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


class RANDebiasedSource(ModelSource):
    """A model variant: ``base`` after RAN-Debias.

    Parameters
    ----------
    base : ModelSource
    definitional : sequence of (str, str)
        Pairs whose first principal component is g.
    preserve : collection of str
        Words kept as they are (unit-normalised): the gender-specific words.
    neighbours, candidates, theta, weights, lr, epochs :
        The repulsion set's largest size, the nearest words searched, the threshold on β,
        λ1..λ3, Adam's step and steps (defaults 100, 200, 0.05, (1/8, 6/8, 6/8), 0.01,
        300: the authors' code; WEFE 0.4.1: 100, 100, 0.05, 0.33 each, 0.01, 300).
    vocab : int, optional
        Search neighbours among the first ``vocab`` words (all when None).
    neutralization : "dot" or "cosine"
        F_n as the authors' code and WEFE write it (dot) or as the paper does (cosine).
    flavour : "authors" or "wefe"
        "authors": the word itself counts among the ``candidates`` and β ≥ θ repels;
        "wefe": ``candidates`` other words and β > θ.
    """

    has_vocabulary = False

    def __init__(self, base: ModelSource, *, definitional: Sequence[Pair], preserve: Collection[str],
                 neighbours: int = 100, candidates: int = 200, theta: float = 0.05,
                 weights: Sequence[float] = AUTHORS_WEIGHTS, lr: float = 0.01, epochs: int = 300,
                 vocab: int | None = None, neutralization: Literal["cosine", "dot"] = "dot",
                 flavour: Literal["authors", "wefe"] = "authors", lists: str = "",
                 name: str | None = None, suffix: str = "+ran-debias", progress: bool | None = None) -> None:
        check_parameters(type(self).__name__, RAN_OPTIONS, neighbours=neighbours, theta=theta, weights=weights,
                         lr=lr, epochs=epochs, vocab=vocab, candidates=candidates, flavour=flavour)
        self.base = as_source(base)
        self.name = name or f"{self.base.name}{suffix}"
        self.definitional = [(str(a), str(b)) for a, b in definitional]
        self.preserve = frozenset(preserve)
        self.neighbours, self.theta, self.weights = int(neighbours), float(theta), tuple(float(x) for x in weights)
        self.lr, self.epochs, self.vocab = float(lr), int(epochs), vocab
        self.candidates, self.neutralization = int(candidates), neutralization
        if flavour not in ("authors", "wefe"):
            raise ModelError(f"{self.name}: flavour {flavour!r} is not 'authors' or 'wefe'")
        self.flavour = flavour
        self.lists, self.progress = lists, progress

    @property
    def open_vocabulary(self) -> bool:  # type: ignore[override]
        return self.base.open_vocabulary

    @cached_property
    def direction(self) -> np.ndarray:
        found = self.base.lookup({w for p in self.definitional for w in p})
        pairs = known_pairs(self.definitional, found, self.base, self.name)
        if not pairs:
            raise ModelError(f"model {self.base.name!r} knows no definitional pair; cannot make {self.name!r}")
        unit = np.array([[found[a] / np.linalg.norm(found[a]), found[b] / np.linalg.norm(found[b])]
                         for a, b in pairs])
        return gender_direction(unit)

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        from tqdm.auto import tqdm

        found = self.base.lookup(words)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = {w: v / np.linalg.norm(v) for w, v in found.items()}
        todo = sorted(w for w, v in out.items() if w not in self.preserve and np.all(np.isfinite(v)))
        if not todo:
            return out
        g = self.direction
        vocab_words, raw = read_vocabulary(self.base, self.vocab)
        unit = unit_rows(raw)
        del raw
        row = {w: i for i, w in reversed(list(enumerate(vocab_words)))}
        with tqdm(total=len(todo), desc=f"RAN debias {self.base.name}", unit="word",
                  disable=None if self.progress is None else not self.progress) as bar:
            for s in blocks(len(todo), BATCH):
                batch = todo[s]
                w = np.array([out[x] for x in batch])
                skip = np.array([row.get(x, -1) for x in batch])
                near = nearest(unit, w, self.candidates, skip)
                bias = np.array([indirect_bias(unit[near[i]].astype(np.float64), w[i], g)
                                 for i in range(len(batch))]).reshape(near.shape)
                if self.flavour == "authors" and near.shape[1] == self.candidates:  # the word itself is one
                    bias[skip >= 0, -1] = np.nan
                chosen = repulsion_sets(bias, self.theta, self.neighbours, inclusive=self.flavour == "authors")
                width = max(1, int(chosen.sum(axis=1).max()))
                order = np.argsort(~chosen, axis=1, kind="stable")[:, :width]
                mask = np.take_along_axis(chosen, order, axis=1)
                rep = unit[np.take_along_axis(near, order, axis=1)].astype(np.float64)
                with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # said below, by option
                    moved = ran_optimize(w, rep, mask, g, weights=self.weights, lr=self.lr, epochs=self.epochs,
                                         neutralization=self.neutralization)
                if not np.isfinite(moved).all():
                    raise ModelError(DIVERGED.format(name=self.name, lr=self.lr, weights=self.weights))
                out.update(zip(batch, moved))
                bar.update(len(batch))
        return out

    @cached_property
    def lists_sha256(self) -> str:
        return _lists_sha256({"definitional": self.definitional, "preserve": sorted(self.preserve)})

    def parameters(self) -> dict[str, Any]:
        return {"flavour": self.flavour, "neighbours": self.neighbours, "candidates": self.candidates,
                "theta": self.theta, "weights": list(self.weights), "lr": self.lr, "epochs": self.epochs,
                "vocab": self.vocab, "neutralization": self.neutralization}

    def describe(self) -> dict[str, str]:
        return {"kind": "ran-debias", "method": "Kumar et al. 2020", "base": self.base.name,
                **{k: str(v) for k, v in self.parameters().items()},
                "lists": self.lists, "lists_sha256": self.lists_sha256}

    def identity(self) -> dict[str, Any] | None:
        base = self.base.identity()
        if base is None:
            return None
        return {"kind": "ran-debias", **self.parameters(), "lists_sha256": self.lists_sha256, "base": base}
