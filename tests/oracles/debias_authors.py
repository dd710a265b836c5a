"""Oracles for the ``flavour=authors`` debiasing variants: double-hard debias and RAN-Debias
rebuilt from the authors' code, independently of ``wefe_same.models.debias``.

- Double-hard (Wang et al. 2020): uvavision/Double-Hard-Debias at commit
  7ec7c5fe2c6d8e0f2fd2b7cc71519c563d3e9d6a, ``GloVe_Debias.ipynb`` (cells "Restrict
  Vocabulary" to the component search) and ``utils.py`` (``limit_vocab``, ``doPCA``,
  ``drop``), rewritten with numpy, scikit-learn's ``PCA`` and ``KMeans`` as they use them.
  Their code stops after the search; the final step is debiaswe's ``debias`` (Bolukbasi
  et al. 2016) on the frequency-cleaned vectors, the paper's Algorithm 1.
- RAN (Kumar et al. 2020): vaibkumr/RAN-Debias at commit
  b446e85f063b3122e2659c721df51e0eac0ba777, ``src/make_neighbours.py`` (200 stored
  neighbours and their indirect bias), ``src/RANDebias.py`` (``get_N_info``,
  ``ran_objective``, Adam in float32 with torch) and ``src/config.ini``, rewritten.

Each oracle works on the words it is asked for, with neighbours and statistics from the
whole vocabulary, so a slice of words is exact.

Run as a script to measure the per-word agreement of the default variants on
glove-6b-50d (a few hundred words of all kinds)::

    python tests/oracles/debias_authors.py
"""

from __future__ import annotations

import string
import sys
import time
from collections.abc import Sequence

import numpy as np

Pair = tuple[str, str]

#: GloVe_Debias.ipynb, cell "Restrict Vocabulary": the notebook's own pairs.
NOTEBOOK_PAIRS = [("she", "he"), ("herself", "himself"), ("her", "his"), ("daughter", "son"), ("girl", "boy"),
                  ("mother", "father"), ("woman", "man"), ("mary", "john"), ("gal", "guy"), ("female", "male")]
#: RAN-Debias src/utils.py get_g.
RAN_PAIRS = [("woman", "man"), ("girl", "boy"), ("she", "he"), ("mother", "father"), ("daughter", "son"),
             ("gal", "guy"), ("female", "male"), ("her", "his"), ("herself", "himself")]


def _limit_ok(word: str) -> bool:
    """utils.limit_vocab's test for one word."""
    if word.lower() != word or len(word) >= 20 or any(ch.isascii() and ch.isdigit() for ch in word):
        return False
    pieces = word.split("_") if "_" in word else [word]
    return all(ch not in string.punctuation for piece in pieces for ch in piece)


def _first_pc_of_pairs(vectors: dict[str, np.ndarray], pairs: Sequence[Pair]) -> np.ndarray:
    """utils.doPCA / we.doPCA: PCA of each pair's two offsets from its centre, first component."""
    from sklearn.decomposition import PCA

    rows = []
    for a, b in pairs:
        if a in vectors and b in vectors:
            centre = (vectors[a] + vectors[b]) / 2
            rows += [vectors[a] - centre, vectors[b] - centre]
    return PCA().fit(np.array(rows)).components_[0]


def _drop(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    return u - v * (u @ v) / (v @ v)


class DoubleHardOracle:
    """The notebook's selection on ``words``/``wv`` (raw vectors, the file's order)."""

    def __init__(self, words: list[str], wv: np.ndarray, specific: Sequence[str], *, size: int = 1000,
                 pool: int = 50000, components: int = 20) -> None:
        from sklearn.decomposition import PCA

        self.words, self.wv = words, np.asarray(wv, dtype=np.float64)
        self.w2i = {w: i for i, w in enumerate(words)}
        excluded = set(specific)
        limited = [w for w in words[:pool] if _limit_ok(w) and w not in excluded]
        he, she = self.wv[self.w2i["he"]], self.wv[self.w2i["she"]]
        rows = self.wv[[self.w2i[w] for w in limited]]
        norms = np.linalg.norm(rows, axis=1)
        bias = rows @ he / norms / np.linalg.norm(he) - rows @ she / norms / np.linalg.norm(she)
        ranked = [limited[i] for i in np.argsort(bias, kind="stable")]
        self.female, self.male = ranked[:size], ranked[-size:]
        self.mean = self.wv.mean(axis=0)
        self.pca = PCA().fit(self.wv - self.mean)  # my_pca: every component, the full SVD
        self.precisions = [self._precision(i) for i in range(components)]
        self.chosen = int(np.argmin(self.precisions))

    def cleaned(self, words: Sequence[str], component: int) -> dict[str, np.ndarray]:
        """The notebook's hard_debias, first half: w − (dᵀw) d − μ."""
        d = self.pca.components_[component]
        return {w: self.wv[self.w2i[w]] - (d @ self.wv[self.w2i[w]]) * d - self.mean for w in words}

    def _precision(self, component: int) -> float:
        from sklearn.cluster import KMeans

        test = self.male + self.female
        cleaned = self.cleaned(test + [w for p in NOTEBOOK_PAIRS for w in p if w in self.w2i], component)
        g = _first_pc_of_pairs(cleaned, NOTEBOOK_PAIRS)
        x = np.array([_drop(cleaned[w], g) for w in test])
        truth = np.array([1] * len(self.male) + [0] * len(self.female))
        predicted = KMeans(n_clusters=2, random_state=1, n_init=10).fit(x).predict(x)
        correct = float(np.mean(predicted == truth))
        return max(correct, 1 - correct)

    def debiased(self, words: Sequence[str], specific: Sequence[str],
                 equalize: Sequence[Pair]) -> dict[str, np.ndarray]:
        """debiaswe's debias (normalise, neutralise, normalise, equalise, normalise) on w'."""
        candidates = {fold(a) + "\t" + fold(b) for a, b in equalize for fold in (str.lower, str.title, str.upper)}
        pairs = [tuple(c.split("\t")) for c in candidates]
        needed = set(words) | {w for p in NOTEBOOK_PAIRS for w in p} | {w for p in pairs for w in p}
        e = {w: v / np.linalg.norm(v) for w, v in self.cleaned([w for w in needed if w in self.w2i],
                                                               self.chosen).items()}
        g = _first_pc_of_pairs(e, NOTEBOOK_PAIRS)
        keep = set(specific)
        e = {w: v if w in keep else _drop(v, g) for w, v in e.items()}
        e = {w: v / np.linalg.norm(v) for w, v in e.items()}
        for a, b in pairs:
            if a in e and b in e:
                y = _drop((e[a] + e[b]) / 2, g)
                z = np.sqrt(1 - np.linalg.norm(y) ** 2)
                if (e[a] - e[b]) @ g < 0:
                    z = -z
                e[a], e[b] = z * g + y, -z * g + y
        return {w: e[w] / np.linalg.norm(e[w]) for w in words if w in e}


def _pair_idb(u: np.ndarray, v: np.ndarray, g: np.ndarray) -> float:
    """make_neighbours.get_pair_idb: (u·v − cos(u⊥, v⊥)) / u·v."""
    u_orth, v_orth = u - (u @ g) * g, v - (v @ g) * g
    dots = u @ v
    return float((dots - u_orth @ v_orth / (np.linalg.norm(u_orth) * np.linalg.norm(v_orth))) / dots)


def _torch_cos(x, vectors):  # type: ignore[no-untyped-def]
    """RANDebias.torch_cosine_similarity."""
    import torch

    return torch.matmul(vectors, x) / (vectors.norm(dim=1) * x.norm(dim=0))


def ran_oracle(words: list[str], wv: np.ndarray, targets: Sequence[str], *, lr: float = 0.01, epochs: int = 300,
               lambdas: Sequence[float] = (1 / 8, 6 / 8, 1 / 8)) -> dict[str, np.ndarray]:
    """RANDebias.py on ``targets``: E in float32 with unit rows, g from get_g's 9 pairs,
    make_neighbours' 200 nearest, get_N_info (thresh 0.05, desel_max 100), Adam."""
    import torch

    vecs = np.asarray(wv, dtype=np.float32)
    vecs = vecs / np.linalg.norm(vecs, axis=1)[:, None]
    index = {w: i for i, w in enumerate(words)}
    g_np = _first_pc_of_pairs({w: vecs[index[w]] for p in RAN_PAIRS for w in p}, RAN_PAIRS)
    g = torch.Tensor(g_np)
    out = {}
    for word in targets:
        v = vecs[index[word]]
        sims = vecs @ v
        top = np.argpartition(-sims, 200)[:200]
        top = top[np.argsort(-sims[top], kind="stable")]
        sel, desel = [], []
        for i in top:
            (desel if _pair_idb(vecs[i], v, g_np) >= 0.05 else sel).append(i)
        attract = torch.tensor(vecs[sel[:1]])
        repel = torch.tensor(vecs[desel[:100]]) if desel else None
        x = torch.nn.Parameter(torch.tensor(v.copy()))
        optimizer = torch.optim.Adam([x], lr=lr)
        w1, w2, _ = lambdas
        for _ in range(epochs):
            optimizer.zero_grad()
            a = torch.abs(_torch_cos(x, attract) - 1).mean(dim=0) / 2
            r = torch.abs(_torch_cos(x, repel)).mean(dim=0) if repel is not None else 0
            n = torch.abs(x.dot(g)).mean(dim=0)
            loss = w1 * r + w2 * a + w2 * n  # ran_objective: the second weight on N as well
            loss.backward()
            optimizer.step()
        out[word] = (x / torch.norm(x)).detach().numpy().astype(np.float64)
    return out


def sample_words(words: list[str]) -> list[str]:
    """A few hundred words of all kinds: gendered, professions and frequent words."""
    from wefe_same.query.files import load_queries

    (lists,) = load_queries("bolukbasi")
    known = set(words)
    gendered = [w for name in ("definitional_female", "definitional_male", "equalize_female", "equalize_male")
                for w in lists.word_set(name).words]
    professions = list(lists.word_set("professions").words)[::3]
    frequent = words[100:30000:200]
    return [w for w in dict.fromkeys(gendered + professions + frequent) if w in known]


def _cos(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> np.ndarray:
    return np.array([a[w] @ b[w] / np.linalg.norm(a[w]) / np.linalg.norm(b[w]) for w in b])


def main() -> int:
    from wefe_same.models import resolve_model
    from wefe_same.models.debias.vocab import read_vocabulary
    from wefe_same.query.files import load_queries

    base = resolve_model("glove-6b-50d")
    words, wv = read_vocabulary(base, None)
    (lists,) = load_queries("debiasing")
    (bolukbasi,) = load_queries("bolukbasi")
    specific = list(lists.word_set("double_hard_gender_specific").words)
    equalize = list(zip(bolukbasi.word_set("equalize_female").words, bolukbasi.word_set("equalize_male").words))
    sample = sample_words(words)
    print(f"glove-6b-50d, {len(words)} words; {len(sample)} sample words")

    start = time.perf_counter()
    oracle = DoubleHardOracle(words, wv, specific)
    theirs = oracle.debiased(sample, specific, equalize)
    oracle_s = time.perf_counter() - start
    start = time.perf_counter()
    ours = resolve_model("glove-6b-50d+double-hard-debias").lookup(sample)
    ours_s = time.perf_counter() - start
    c = _cos(ours, theirs)
    print(f"double-hard: oracle removes component {oracle.chosen} (accuracies "
          f"{', '.join(f'{p:.4f}' for p in oracle.precisions)}); per-word cosine to ours: mean {c.mean():.7f}, "
          f"min {c.min():.7f} over {len(c)} words; oracle {oracle_s:.1f} s, ours {ours_s:.1f} s")

    start = time.perf_counter()
    theirs = ran_oracle(words, wv, [w for w in sample if w not in set(bolukbasi.word_set("gender_specific").words)])
    oracle_s = time.perf_counter() - start
    start = time.perf_counter()
    ours = resolve_model("glove-6b-50d+ran-debias").lookup(list(theirs))
    ours_s = time.perf_counter() - start
    c = _cos(ours, theirs)
    print(f"RAN: per-word cosine to ours: mean {c.mean():.7f}, min {c.min():.7f} over {len(c)} words "
          f"(worst: {list(theirs)[int(np.argmin(c))]}); oracle {oracle_s:.1f} s, ours {ours_s:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
