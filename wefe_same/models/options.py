"""How model specs are loaded: the options every source builder receives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

UnicodeErrors = Literal["strict", "replace", "ignore"]


@dataclass(frozen=True)
class LoadOptions:
    """Options that apply to every model of a run.

    Attributes
    ----------
    trust_pickle : bool
        Allow gensim ``.kv``/``.model`` pickles given by path (loading one runs code).
    unicode_errors : {"strict", "replace", "ignore"}
        How a word that is not valid UTF-8 in a text or binary embedding file is decoded:
        "strict" stops with an error naming the file and line (default); the others
        decode it leniently, as gensim's ``unicode_errors`` does, and report it.
    subwords : bool
        fastText ``.bin`` models build vectors of out-of-vocabulary words from their
        character n-grams (marked ``subword`` in lookups.csv); False refuses them.
    templates : tuple of str
        Sentence templates with a ``{word}`` slot for encoder models; the word is encoded
        in each and the vectors averaged. Empty: every word is encoded alone.
    allow_download : bool
        Let encoder models be fetched from the Hugging Face hub; default only local
        folders and the local cache are used.
    """

    trust_pickle: bool = False
    unicode_errors: UnicodeErrors = "strict"
    subwords: bool = True
    templates: tuple[str, ...] = field(default=())
    allow_download: bool = False
