"""Oracle of Gonen & Goldberg's 2019 "Lipstick on a Pig" tests, rebuilt from the authors'
procedure independently of ``wefe_same.analysis.lipstick`` (dicts of words, sorted lists,
``argsort`` neighbours, as their notebook works).

Source: gonenhila/gender_bias_lipstick at commit d1cd879f9825d96cd8501450e5ab79051c767a5b,
``source/remaining_bias_2016.ipynb`` (the stored snapshot lists the notebook but holds
no readable copy of it); the steps below follow the functions of that notebook as the
derived code of uvavision/Double-Hard-Debias at commit
7ec7c5fe2c6d8e0f2fd2b7cc71519c563d3e9d6a keeps them (``utils.py``: ``limit_vocab``,
``topK``, ``cluster_and_visualize``, ``train_and_predict``, ``bias_by_neighbors``;
``GloVe_Eval.ipynb``: ``compute_bias_by_projection``, ``cls``) and the paper's §4
(500 + 500 words clustered; 5,000 words, 1,000 to train an RBF SVM and 4,000 to test;
100 neighbours), and the lists of ``data/lists/`` (male_word_file.txt,
female_word_file.txt, gender_specific_full.json: the words left out).

Run as a script to measure, on glove-6b-50d and its +hard-debias variant, the spread of
the authors' k-means over seeds beside the library's numbers (docs/guide/debiasing.md)::

    python tests/oracles/lipstick_authors.py [SEEDS]
"""

from __future__ import annotations

import operator
import random
import string
import sys
import time
from collections.abc import Sequence

import numpy as np


def normalize(wv: np.ndarray) -> np.ndarray:
    """Their ``normalize``: every row divided by its norm (on loading)."""
    return wv / np.linalg.norm(wv, axis=1)[:, np.newaxis]


def has_punct(w: str) -> bool:
    return any(c in string.punctuation for c in w)


def has_digit(w: str) -> bool:
    return any(c in "0123456789" for c in w)


def limit_vocab(vocab: Sequence[str], exclude: set[str], limit: int = 50000) -> list[str]:
    """Their ``limit_vocab``: the first ``limit`` words, lower case, < 20 characters, no digit,
    underscore phrases whose parts have no punctuation, other words without punctuation;
    then the excluded words removed (their ``set`` difference; here in vocabulary order)."""
    kept = []
    for w in vocab[:limit]:
        if w.lower() != w or len(w) >= 20 or has_digit(w):
            continue
        if "_" in w:
            if not any(has_punct(p) for p in w.split("_")):
                kept.append(w)
            continue
        if has_punct(w):
            continue
        kept.append(w)
    out, seen = [], set()
    for w in kept:
        if w not in exclude and w not in seen:
            seen.add(w)
            out.append(w)
    return out


class Space:
    """A vocabulary, its (normalised) vectors and the word → row map, as their ``vocab``,
    ``wv`` and ``w2i`` dicts hold one space."""

    def __init__(self, vocab: Sequence[str], wv: np.ndarray) -> None:
        self.vocab = list(vocab)
        self.wv = normalize(np.asarray(wv, dtype=np.float64))
        self.w2i = {w: i for i, w in enumerate(self.vocab)}

    def limited(self, words: Sequence[str]) -> Space:
        return Space(words, np.array([self.wv[self.w2i[w]] for w in words]))


def compute_bias_by_projection(limited: Space, full: Space) -> dict[str, float]:
    """Their ``compute_bias_by_projection``: dot with 'he' minus dot with 'she' of the full space."""
    males = limited.wv.dot(full.wv[full.w2i["he"]])
    females = limited.wv.dot(full.wv[full.w2i["she"]])
    return {w: m - f for w, m, f in zip(limited.vocab, males, females)}


def cluster(words: Sequence[str], space: Space, y_true: Sequence[int], random_state: int) -> float:
    """Their ``cluster_and_visualize`` without the t-SNE plot: KMeans(2) and the 'precision'."""
    from sklearn.cluster import KMeans

    X = [space.wv[space.w2i[w]] for w in words]
    y_pred = KMeans(n_clusters=2, random_state=random_state, n_init=10).fit(X).predict(X)
    correct = [1 if a == b else 0 for a, b in zip(y_true, y_pred)]
    return max(sum(correct) / float(len(correct)), 1 - sum(correct) / float(len(correct)))


def clustering(bias: dict[str, float], space: Space, size: int = 500, random_state: int = 1) -> float:
    sorted_g = sorted(bias.items(), key=operator.itemgetter(1))
    female = [item[0] for item in sorted_g[:size]]
    male = [item[0] for item in sorted_g[-size:]]
    y_true = [1] * size + [0] * size
    return cluster(male + female, space, y_true, random_state)


def classification(bias: dict[str, float], space: Space, size_train: int = 500, size_test: int = 2000,
                   seed: int = 0, gamma: str = "auto") -> float:
    """Their ``cls`` and ``train_and_predict``: RBF ``svm.SVC`` (gamma 'auto' was the default
    of scikit-learn then), the shuffles drawn from ``random.Random(seed)``."""
    from sklearn import svm

    size = size_train + size_test
    sorted_g = sorted(bias.items(), key=operator.itemgetter(1))
    females = [item[0] for item in sorted_g[:size]]
    males = [item[0] for item in sorted_g[-size:]]
    males.reverse()
    rng = random.Random(seed)
    rng.shuffle(females)
    rng.shuffle(males)
    X_train = [space.wv[space.w2i[w]] for w in males[:size_train] + females[:size_train]]
    Y_train = [1] * size_train + [0] * size_train
    X_test = [space.wv[space.w2i[w]] for w in males[size_train:] + females[size_train:]]
    Y_test = [1] * size_test + [0] * size_test
    preds = svm.SVC(gamma=gamma).fit(X_train, Y_train).predict(X_test)
    return float(sum(1 if y == z else 0 for y, z in zip(preds, Y_test))) / len(Y_test)


def topK(w: str, space: Space, k: int) -> list[str]:
    """Their ``topK``: the k + 1 most similar by a full descending argsort, the word itself dropped."""
    idx = space.w2i[w]
    sim = space.wv.dot(space.wv[idx])
    best = sim.argsort()[::-1][:k + 1]
    return [space.vocab[i] for i in best if i != idx][:k]


def bias_by_neighbours(bias: dict[str, float], space: Space, size: int = 500,
                       neighbours: int = 100) -> tuple[float, float]:
    """Their ``bias_by_neighbors`` tuples (word, bias, male count, female count) of the
    ``size`` most biased words of each gender (every word with size 0), then Pearson's r
    of bias and male count (``compute_corr(tuples, 1, 2)``), and the mean share of
    neighbours biased the word's way."""
    from scipy.stats import pearsonr

    sorted_g = sorted(bias.items(), key=operator.itemgetter(1))
    selected = [i[0] for i in sorted_g[:size]] + [i[0] for i in sorted_g[-size:]] if size > 0 else space.vocab
    tuples = []
    for w in selected:
        m = sum(1 for t in topK(w, space, neighbours) if bias[t] > 0)
        tuples.append((w, bias[w], m, neighbours - m))
    same = [t[2] / neighbours if t[1] > 0 else t[3] / neighbours for t in tuples]
    return float(pearsonr([t[1] for t in tuples], [t[2] for t in tuples])[0]), float(np.mean(same))


def oracle(base_vocab: Sequence[str], base_wv: np.ndarray, debiased_vocab: Sequence[str], debiased_wv: np.ndarray,
           exclude: set[str], *, size: int = 500, size_train: int = 500, size_test: int = 2000,
           neighbour_size: int = 500, neighbours: int = 100, limit: int = 50000, random_state: int = 1,
           gamma: str = "auto") -> dict[str, float]:
    """The four numbers of one debiased space, the bias read in the base."""
    before, after = Space(base_vocab, base_wv), Space(debiased_vocab, debiased_wv)
    words = limit_vocab(before.vocab, exclude, limit)
    bias = compute_bias_by_projection(before.limited(words), before)
    limited = after.limited(words)
    r, same = bias_by_neighbours(bias, limited, neighbour_size, neighbours)
    return {"clustering": clustering(bias, limited, size, random_state),
            "classification": classification(bias, limited, size_train, size_test, random_state, gamma),
            "neighbours": r, "agreement": same}


def _glove_spread(seeds: int) -> None:  # pragma: no cover - a measurement, run by hand
    from wefe_same.analysis.lipstick import LipstickSettings, gender_specific_words, lipstick_table
    from wefe_same.models import resolve_model

    names = ["glove-6b-50d", "glove-6b-50d+hard-debias"]
    sources = {n: resolve_model(n) for n in names}
    base_vocab, base_wv = sources[names[0]].vocabulary(50000)
    deb_vocab, deb_wv = sources[names[1]].vocabulary(50000)
    exclude = set(gender_specific_words())
    started = time.perf_counter()
    ours = lipstick_table([(names[0], names[1], "+hard-debias")], sources, LipstickSettings(seeds=seeds), seed=0)
    print(f"wefe_same ({time.perf_counter() - started:.1f} s):")
    print(ours[["test", "value", "base_value", "spread_min", "spread_max", "spread_sd"]].to_string(index=False))
    before, after = Space(base_vocab, base_wv), Space(deb_vocab, deb_wv)
    words = limit_vocab(before.vocab, exclude)
    bias = compute_bias_by_projection(before.limited(words), before)
    limited = after.limited(words)
    r, same = bias_by_neighbours(bias, limited)
    print(f"oracle neighbours {r:.4f}, agreement {same:.4f} (no seed)")
    for test, run in (("clustering", clustering), ("classification", classification)):
        values = np.array([run(bias, limited, random_state=seed) if test == "clustering"
                           else run(bias, limited, seed=seed) for seed in range(seeds)])
        print(f"oracle {test} over seeds 0..{seeds - 1}: {np.round(values, 4).tolist()}; min {values.min():.4f} "
              f"max {values.max():.4f} mean {values.mean():.4f} sd {values.std(ddof=1):.4f}", flush=True)

if __name__ == "__main__":
    _glove_spread(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
