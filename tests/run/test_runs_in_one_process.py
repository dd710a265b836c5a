"""Two different runs in one process give the same bytes as each alone (issue 40, item 4).

What a run remembers (permutation splits, RNSB's masks and classifiers, Direct Bias's SVDs,
column means) lives in the run's own memo, never in a module: run B after run A, and A
again after B, give the tables each gives in a fresh interpreter. The runs share sets
(so a module-level cache would be hit) but differ in seed, permutations and models.

    python tests/run/test_runs_in_one_process.py A|B   # one run alone: its tables' digest
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np

from wefe_same import Execution, Query, WordSet, rank
from wefe_same.models import ArraySource

MALE = ["he", "man", "boy", "father", "king", "son"]
FEMALE = ["she", "woman", "girl", "mother", "queen", "daughter"]
CAREER = ["doctor", "engineer", "lawyer", "pilot", "banker"]
CARE = ["nurse", "teacher", "nanny", "cook", "maid"]
NEUTRAL = ["table", "river", "cloud", "stone", "music", "paper", "glass"]
WORDS = MALE + FEMALE + CAREER + CARE + NEUTRAL
QUERIES = [
    Query([WordSet("male", MALE, aligned=True), WordSet("female", FEMALE, aligned=True)],
          [WordSet("career", CAREER), WordSet("care", CARE)], name="career"),
    Query([WordSet("male", MALE, aligned=True), WordSet("female", FEMALE, aligned=True)],
          [WordSet("neutral", NEUTRAL)], name="neutral"),
]
METRICS = ["WEAT", "WEAT-ES", "RNSB", "MAC", "DirectBias", "RND", "ECT", "SAME", "gWEAT"]


def models(first_seed: int, n: int, dim: int) -> list[ArraySource]:
    return [ArraySource(f"m{first_seed + i}", WORDS, np.random.default_rng(first_seed + i).normal(size=(len(WORDS), dim)))
            for i in range(n)]


RUNS = {
    # Models of B repeat two of A's (seeds 3, 4): the same vectors, so the same classifiers and SVDs.
    "A": dict(models=(0, 5, 10), seed=1, permutations=300),
    "B": dict(models=(3, 4, 10), seed=2, permutations=500),
}


def run(name: str):
    first, n, dim = RUNS[name]["models"]
    return rank(models(first, n, dim), queries=QUERIES, metrics=METRICS, seed=RUNS[name]["seed"],
                permutations=RUNS[name]["permutations"], execution=Execution(cache=False, progress=False))


def digest(result) -> str:
    h = hashlib.sha256()
    for frame in (result.details, result.aggregates, result.rankings, result.word_bias, *result.scores.values()):
        h.update(frame.to_csv().encode())
    return h.hexdigest()


def alone(name: str) -> str:
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), name], capture_output=True, text=True,
                          check=True)
    return done.stdout.split()[-1]


def test_two_runs_in_one_process_give_the_bytes_of_each_alone():
    a_first = digest(run("A"))
    b_after_a = digest(run("B"))
    a_after_b = digest(run("A"))
    assert a_first == a_after_b
    assert b_after_a == alone("B")
    assert a_first == alone("A")
    assert a_first != b_after_a


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")
    print(digest(run(sys.argv[1])))
