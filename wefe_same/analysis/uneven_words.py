"""Words that some models of a run have and others lack: found and said (issue 39 item 5).

A set that loses at most ``missing_threshold`` of its words in a model is scored there on
the words it kept (:func:`wefe_same.scoring.layout.layout_of`). When another model has
the lost words, the two models are scored on different words, in silence: a typo such as
"managment" that one model happens to contain is used there and dropped in the others.
:func:`uneven_words` finds such words from the run's lookups (the report finds them again
from ``lookups.csv.gz``); :func:`uneven_word_warnings` says so once per set, naming the
words and the models that lack them, and points to ``--shared-words`` (every model scored
on the words all of them have). A set that loses more than the threshold in a model makes
its subquery NaN there, which :mod:`wefe_same.analysis.uneven` already says; those models
are not named here. The share lost is counted per word of the set, also for aligned target
sets (where a missing word drops its tuple).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from wefe_same.analysis.uneven import model_names
from wefe_same.errors import short_list
from wefe_same.query.sets import WordSet
from wefe_same.scoring.vectors import FOUND

#: Words a warning names per group of models (the rest are counted).
WORDS_SHOWN = 3


def found_words(lookups: pd.DataFrame) -> dict[str, frozenset[str]]:
    """Each model of ``lookups`` (columns model, word, status) and the words found in it.

    >>> lk = pd.DataFrame({"model": ["a", "a", "b"], "word": ["x", "y", "x"], "status": ["exact", "missing", "lower"]})
    >>> {m: sorted(w) for m, w in found_words(lk).items()}
    {'a': ['x'], 'b': ['x']}
    """
    if lookups.empty or not {"model", "word", "status"} <= set(lookups.columns):
        return {}
    models = lookups["model"].astype(str).unique().tolist()  # in order of appearance
    hit = lookups[lookups["status"].isin(FOUND)]
    # tolist(): a string column's values at once (iterating an Arrow-backed one took 0.3 s a run)
    by_model = {str(m): frozenset(part.astype(str).tolist())
                for m, part in hit.groupby(hit["model"].astype(str), observed=True)["word"]}
    return {m: by_model.get(m, frozenset()) for m in models}


def uneven_words(lookups: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    """Each word found in at least one model and not in every one, and the models that lack
    it (in the lookups' order). A word no model has, or every model has, is not uneven.

    >>> lk = pd.DataFrame({"model": ["a", "a", "b", "b"], "word": ["x", "y", "x", "y"],
    ...                    "status": ["exact", "exact", "exact", "missing"]})
    >>> uneven_words(lk)
    {'y': ('b',)}
    """
    found = found_words(lookups)
    words = lookups["word"].astype(str).unique().tolist() if found else []
    out = {}
    for word in words:
        lack = tuple(m for m, have in found.items() if word not in have)
        if lack and len(lack) < len(found):
            out[word] = lack
    return out


def uneven_word_warnings(sets: Iterable[WordSet], lookups: pd.DataFrame, threshold: float) -> list[str]:
    """One warning per set (by name and words) with a word that some models lack while the
    set stays within ``threshold`` in them, so that they are scored without it.

    >>> lk = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "word": ["he", "she", "boss", "managment"] * 2,
    ...                    "status": ["exact"] * 4 + ["exact"] * 3 + ["missing"]})
    >>> print(uneven_word_warnings([WordSet("career", ("boss", "managment"))], lk, 0.5)[0])
    ... # doctest: +NORMALIZE_WHITESPACE
    set 'career': 'managment' is not in 'b' (1 of 2 models), which score the set without it (within
    --missing-threshold 0.5): the models are scored on different words (--shared-words: on the words all have)
    """
    lacking = uneven_words(lookups)
    if not lacking:
        return []
    found = found_words(lookups)
    n_models = len(found)
    messages = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for s in sets:
        if (s.name, s.words) in seen:
            continue
        seen.add((s.name, s.words))
        words = list(dict.fromkeys(s.words))
        if not any(w in lacking for w in words):
            continue
        kept = {m: sum(w not in have for w in s.words) / len(s.words) <= threshold
                for m, have in found.items()} if s.words else {}
        groups: dict[tuple[str, ...], list[str]] = {}
        for word in words:
            models = tuple(m for m in lacking.get(word, ()) if kept.get(m, False))
            if models:
                groups.setdefault(models, []).append(word)
        if groups:
            messages.append(_message(s.name, groups, n_models, threshold))
    return messages


def _message(name: str, groups: dict[tuple[str, ...], list[str]], n_models: int, threshold: float) -> str:
    parts = []
    for models, words in groups.items():
        verb = "is" if len(words) == 1 else "are"
        # a few words and two models by name: the default run's sentiment lexicons hold
        # hundreds of misspellings; every one is in lookups.csv and the report's coverage table
        parts.append(f"{short_list(words, quote=True, shown=WORDS_SHOWN)} {verb} not in {model_names(models)} "
                     f"({len(models)} of {n_models} models)")
    return (f"set {name!r}: {'; '.join(parts)}, which score the set without "
            f"{'it' if len(groups) == 1 and len(next(iter(groups.values()))) == 1 else 'them'} "
            f"(within --missing-threshold {threshold:g}): the models are scored on different words "
            "(--shared-words: on the words all have)")


def run_sets(queries: Sequence[object]) -> list[WordSet]:
    """Every word set of ``queries`` (objects with ``targets`` and ``attributes``), in order."""
    return [s for q in queries for s in (*q.targets, *q.attributes)]  # type: ignore[attr-defined]
