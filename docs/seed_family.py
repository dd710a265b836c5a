"""A family of word2vec models that differ only by their training seed, built offline, for
the test-retest example of docs/guide/trust.md.

The corpus is gensim's own test corpus ``head500.noblanks.cor`` (the first 500 documents
of an English Wikipedia dump, lower-cased, stop words removed and stemmed; it ships in
``gensim/test/test_data``, LGPL-2.1 like gensim). Its stems keep eight gender pairs whole
(man/woman, men/women, father/mother, son/daughter, husband/wife, brother/sister,
king/queen, actor/actress) and 29 occupations that occur at least 17 times. Each seed is
``gensim.models.Word2Vec`` (skip-gram, 50 dimensions, one worker and a hash of the words
that does not change between processes, so a seed gives the same vectors every time),
written as word2vec text beside a query file and a models file that declares the family::

    python docs/seed_family.py [FOLDER] [--seeds 5] [--epochs 5] [--rank]

``--rank`` then ranks the family with ``--reliability --split-halves 20`` and prints the
reliability table's coefficients.
"""

from __future__ import annotations

import argparse
import zlib
from pathlib import Path

PAIRS = [("man", "woman"), ("men", "women"), ("father", "mother"), ("son", "daughter"), ("husband", "wife"),
         ("brother", "sister"), ("king", "queen"), ("actor", "actress")]
OCCUPATIONS = ["doctor", "teacher", "scientist", "writer", "artist", "soldier", "lawyer", "politician", "scholar",
               "poet", "painter", "musician", "singer", "farmer", "merchant", "priest", "bishop", "student",
               "professor", "author", "director", "leader", "worker", "physician", "mathematician", "architect",
               "chemist", "economist", "historian"]


def stable_hash(word: str) -> int:
    """gensim seeds each word's first vector from ``hashfxn(word + seed)``; Python's ``hash``
    of a string changes between processes, this does not."""
    return zlib.crc32(word.encode("utf-8"))


def query_file() -> str:
    """Gender pairs against six sets of occupations (five each, the last four), in three queries."""
    def quoted(words):
        return ", ".join(f'"{w}"' for w in words)

    male, female = zip(*PAIRS)
    parts = [f'[meta]\nname = "wiki-gender"\n\n[sets.male]\nwords = [{quoted(male)}]\naligned = true\n\n'
             f'[sets.female]\nwords = [{quoted(female)}]\naligned = true\n']
    names = [f"occupations_{i + 1}" for i in range(6)]
    for i, name in enumerate(names):
        parts.append(f"\n[sets.{name}]\nwords = [{quoted(OCCUPATIONS[5 * i:5 * i + 5])}]\n")
    for i in range(3):
        parts.append(f'\n[[queries]]\nname = "gender_{i + 1}"\ntargets = ["male", "female"]\n'
                     f'attributes = ["{names[2 * i]}", "{names[2 * i + 1]}"]\n')
    return "".join(parts)


def train_family(folder: Path, seeds: int = 5, epochs: int = 5) -> Path:
    """Train ``seeds`` models into ``folder``; returns the models file."""
    from gensim.models import Word2Vec
    from gensim.test.utils import datapath

    folder.mkdir(parents=True, exist_ok=True)
    with open(datapath("head500.noblanks.cor"), encoding="utf-8") as corpus:
        sentences = [line.split() for line in corpus]
    lines = []
    for seed in range(1, seeds + 1):
        model = Word2Vec(sentences, vector_size=50, window=5, min_count=5, sg=1, epochs=epochs, seed=seed,
                         workers=1, hashfxn=stable_hash)
        path = folder / f"w2v-seed{seed}.txt"
        model.wv.save_word2vec_format(str(path))
        lines.append(f'[[models]]\nspec = "{path.name}"\nname = "w2v-seed{seed}"\nfamily = "w2v"\nseed = {seed}\n')
    (folder / "wiki-gender.toml").write_text(query_file())
    models = folder / "models.toml"
    models.write_text("\n".join(lines))
    return models


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default="seed-family")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--rank", action="store_true", help="rank the family and print its reliability table")
    args = parser.parse_args()
    models = train_family(Path(args.folder), args.seeds, args.epochs)
    print(f"wrote {models}")
    if args.rank:
        import warnings

        from wefe_same import Bootstrap, Execution, rank

        with warnings.catch_warnings():  # the seeds share every word: nothing worth a warning here
            warnings.simplefilter("ignore")
            result = rank(models_file=models, queries=models.parent / "wiki-gender.toml",
                          metrics=["WEAT", "SAME", "DirectBias", "RIPA", "RND", "ECT"], permutations=0,
                          bootstrap=Bootstrap(reliability=True, split_halves=20),
                          execution=Execution(progress=False, cache=False))
        table = result.reliability
        shown = table[((table["family"] != "") | (table["kind"] == "split-half")) & table["value"].notna()]
        columns = ["kind", "measure", "coefficient", "value", "low", "high", "n_subjects", "n_raters", "reading"]
        print(shown[columns].round(3).to_string(index=False))
