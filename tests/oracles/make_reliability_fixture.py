"""Expected reliability coefficients made by running Du, Fang & Nguyen's own code.

Source: nlpsoc/reliability_bias @ c88f51bd8fa0363a6f0ceba4fc6b1621339893ff (MIT),
``reliability_metrics.py``: its ``ReliabilityEstimator`` is imported from a checkout of
that commit and run unedited on seeded arrays of the shape it takes (bias measures ×
target words × gender base pairs × embeddings), and on the array the tool itself builds
for a hand-built family of five seeds (:func:`tool_array`); nothing of it is copied here
or committed. The arrays and its outputs go to ``tests/analysis/data/reliability_authors.json``,
which ``tests/analysis/test_reliability.py`` compares with ``wefe_same.analysis.reliability``.

    python tests/oracles/make_reliability_fixture.py PATH_TO_A_CHECKOUT_OR_GIT_DIR
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

COMMIT = "c88f51bd8fa0363a6f0ceba4fc6b1621339893ff"
OUT = Path(__file__).resolve().parents[1] / "analysis" / "data" / "reliability_authors.json"
MEASURES, WORDS, PAIRS, EMBEDS = ["db_wa", "ripa", "noise"], 12, 6, 5


def their_module(source: Path):
    """``reliability_metrics.py`` of COMMIT, from a checkout or a bare git directory, imported as it is."""
    text = subprocess.run(["git", f"--git-dir={source / '.git' if (source / '.git').exists() else source}",
                           "show", f"{COMMIT}:reliability_metrics.py"], capture_output=True, text=True,
                          check=True).stdout
    folder = Path(tempfile.mkdtemp())
    (folder / "reliability_metrics.py").write_text(text)
    spec = importlib.util.spec_from_file_location("reliability_metrics", folder / "reliability_metrics.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def arrays() -> dict[str, np.ndarray]:
    """Seeded scores with structure: a word effect shared by the first two measures, a pair
    effect, seed noise; the third measure is pure noise."""
    rng = np.random.default_rng(20211107)
    word, pair = rng.normal(size=(WORDS, 1, 1)), 0.5 * rng.normal(size=(1, PAIRS, 1))
    signal = word + pair
    scores = np.stack([signal + 0.3 * rng.normal(size=(WORDS, PAIRS, EMBEDS)),
                       2.0 * signal + 1.0 + 0.6 * rng.normal(size=(WORDS, PAIRS, EMBEDS)),
                       rng.normal(size=(WORDS, PAIRS, EMBEDS))])
    return {"structured": scores}


def tool_array() -> tuple[np.ndarray, list[str], list[str], list[tuple[str, str]]]:
    """The array the tool builds (``wefe_same.scoring.word_level``) for a hand-built family of
    five seeds: a shared model with a gender direction (each word biased along it by its
    own amount) plus seed noise, one unit of six base pairs and 15 words;
    (measures × words × pairs × seeds), the measures, words and pairs."""
    from wefe_same import Query, QuerySet, WordSet
    from wefe_same.metrics.registry import METRICS
    from wefe_same.models import ArraySource
    from wefe_same.scoring.vectors import build_table
    from wefe_same.scoring.word_level import WORD_MEASURES, reliability_units, word_level_scores

    male, female = [f"m{i}" for i in range(6)], [f"f{i}" for i in range(6)]
    words = [f"w{i}" for i in range(15)]
    vocabulary = male + female + words
    query = Query([WordSet("male", male, aligned=True), WordSet("female", female, aligned=True)],
                  [WordSet("jobs", words)], name="q")
    unit, = reliability_units([QuerySet("toy", [query])])
    rng = np.random.default_rng(41)
    shared = rng.normal(size=(len(vocabulary), 16))
    direction = rng.normal(size=16)  # a gender direction: the pairs on it, the words at their own bias along it
    shared += np.concatenate([np.ones(6), -np.ones(6), rng.normal(size=15)])[:, None] * direction
    specs = [METRICS[name] for name in WORD_MEASURES]
    seeds = [word_level_scores(build_table(ArraySource(f"seed{s}", vocabulary, shared + 0.4 * rng.normal(
        size=shared.shape)), vocabulary), unit, specs, {}) for s in range(5)]
    return np.stack(seeds, axis=-1), [s.name for s in specs], list(unit.words), unit.pairs


def main(source: str) -> None:
    module = their_module(Path(source))
    out = {"source": f"nlpsoc/reliability_bias @ {COMMIT}, reliability_metrics.py", "cases": {}}
    built, measures, words, pairs = tool_array()
    cases = {name: (scores, MEASURES, [f"t{i}" for i in range(scores.shape[1])],
                    [(f"m{j}", f"f{j}") for j in range(scores.shape[2])]) for name, scores in arrays().items()}
    cases["tool"] = (built, measures, words, pairs)
    for name, (scores, measures, words, pairs) in cases.items():
        estimator = module.ReliabilityEstimator(scores, measures, words, pairs)
        out["cases"][name] = {
            "scores": scores.tolist(),
            "test_retest_target_words": estimator.test_retest_target_words(),
            "test_retest_gender_base_pairs": {m: {"-".join(k): v for k, v in d.items()}
                                              for m, d in estimator.test_retest_gender_base_pairs().items()},
            "inter_rater_consistency_target_words": estimator.inter_rater_consistency_target_words(),
            "inter_rater_consistency_gender_base_pairs": {
                "-".join(k): v for k, v in estimator.inter_rater_consistency_gender_base_pairs().items()},
            "internal_consistency": estimator.internal_consistency(),
        }
    OUT.write_text(json.dumps(out, indent=1, default=float) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
