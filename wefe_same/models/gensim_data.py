"""``gensim-data:NAME``: models that gensim's downloader has stored on this machine.

gensim's downloader (``gensim/downloader.py``) keeps each model in
``$GENSIM_DATA_DIR/NAME/NAME.gz`` (default ``~/gensim-data``), a gzip word2vec text or
binary file; this module finds it there and reads it with the streamed readers, never
downloading anything. ``GENSIM_DATA_DIR`` is read on every call (gensim reads it once, at
import), so a test or a notebook can point it elsewhere.

The WEFE case study ranks five of these models (:data:`CASE_STUDY`):

- ``word2vec-google-news-300``: word2vec binary, 3M words and phrases;
- ``glove-wiki-gigaword-300``, ``glove-twitter-200``: GloVe converted to word2vec text;
- ``fasttext-wiki-news-subwords-300``: fastText ``.vec`` text (word2vec text with a
  header), 1M words; trained with subwords, but the file holds word vectors only, so
  out-of-vocabulary words are missing (as in gensim);
- ``conceptnet-numberbatch-17-06-300``: word2vec text with multilingual keys such as
  ``/c/en/doctor``; the ``/c/en/`` prefix is mapped away (:data:`KEY_PREFIXES`), so
  English words are looked up as they are written; ``gensim-data:NAME,prefix=/c/de/``
  chooses another language, ``prefix=`` (empty) sees the raw keys.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource
from wefe_same.models.readers.vectors_file import open_vectors_file
from wefe_same.models.specs import LoadOptions

SCHEME = "gensim-data"
#: The gensim-data models of the WEFE case study (Badilla et al. 2020, §4; the paper used Numberbatch 19.08-en,
#: gensim-data has the multilingual 17.06), as gensim-data names them.
CASE_STUDY = (
    "conceptnet-numberbatch-17-06-300",
    "fasttext-wiki-news-subwords-300",
    "glove-twitter-200",
    "glove-wiki-gigaword-300",
    "word2vec-google-news-300",
)
#: Key prefixes stripped by default: ConceptNet Numberbatch's English terms are ``/c/en/WORD``.
KEY_PREFIXES = {"conceptnet-numberbatch-17-06-300": "/c/en/"}

NOT_DOWNLOADED = ("gensim-data model {name!r} is not in {folder} (no file {path}); fetch it with "
                  "`python -m gensim.downloader --download {name}` or set GENSIM_DATA_DIR to the folder "
                  "that holds it")
BAD_NAME = "{spec!r} is not a gensim-data name: write gensim-data:NAME or gensim-data:NAME,prefix=PREFIX"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def data_dir() -> Path:
    """``$GENSIM_DATA_DIR``, or ``~/gensim-data`` as in gensim's downloader."""
    return Path(os.environ.get("GENSIM_DATA_DIR", os.path.expanduser("~/gensim-data")))


def model_path(name: str) -> Path:
    """Where gensim's downloader stores model ``name``: ``DATA_DIR/NAME/NAME.gz``.

    >>> model_path("glove-twitter-200").parts[-2:]
    ('glove-twitter-200', 'glove-twitter-200.gz')
    """
    return data_dir() / name / f"{name}.gz"


def gensim_data_status(names: tuple[str, ...] = CASE_STUDY) -> list[tuple[str, bool, Path]]:
    """(name, whether it is on this machine, its path) for each gensim-data model name.

    Uses ``os.stat`` only; nothing is read.
    """
    return [(n, model_path(n).is_file(), model_path(n)) for n in names]


def parse_location(location: str) -> tuple[str, str | None]:
    """``NAME[,prefix=P]`` → (NAME, P or None when not given).

    >>> parse_location("conceptnet-numberbatch-17-06-300,prefix=/c/de/")
    ('conceptnet-numberbatch-17-06-300', '/c/de/')
    >>> parse_location("glove-twitter-200")
    ('glove-twitter-200', None)
    """
    name, _, options = location.partition(",")
    prefix: str | None = None
    if options:
        key, eq, value = options.partition("=")
        if key != "prefix" or not eq:
            raise ModelError(BAD_NAME.format(spec=f"{SCHEME}:{location}"))
        prefix = value
    # A name is one folder: no separators, no "..", so it cannot leave the data folder.
    if not _NAME.fullmatch(name) or ".." in name:
        raise ModelError(BAD_NAME.format(spec=f"{SCHEME}:{location}"))
    return name, prefix


def gensim_data_source(name: str | None, location: str, options: LoadOptions) -> ModelSource:
    """The :data:`~wefe_same.models.catalog.SCHEMES` builder of ``gensim-data:NAME[,prefix=P]``.

    The path is checked now (``os.stat``); text or binary is sniffed from the file's
    first bytes and the vectors are read on the first lookup.
    """
    model, prefix = parse_location(location)
    path = model_path(model)
    if not path.is_file():
        raise ModelError(NOT_DOWNLOADED.format(name=model, folder=data_dir(), path=path))
    key_prefix = KEY_PREFIXES.get(model, "") if prefix is None else prefix
    return open_vectors_file(name or model, path, label="word2vec", options=options, key_prefix=key_prefix)
