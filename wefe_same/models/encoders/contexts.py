"""What text a word is encoded in: alone, in templates (``--template``, ``--templates seat``
or a file), or in sentences of a corpus that contain it (``--contexts FILE``, as CEAT,
Guo & Caliskan 2021, and Bommasani et al. 2020 take words in context).

Each function returns, per word, the texts to encode and the character spans of the word
in each text (what the ``word-*`` poolings pool over).

Templates
---------
``{word}`` is replaced by the word (every occurrence; other braces stay), ``{a}`` by the
article ``an`` before a vowel letter and ``a`` otherwise. ``seat`` is the bundled set of
semantically bleached templates of May et al. (2019), ``queries/templates/seat.toml``:
words starting with a capital letter get its name templates, the others its term
templates (``seat-names`` and ``seat-terms`` force one list). A file holds one template a
line (blank lines and lines starting with ``#`` are skipped).

Contexts
--------
A text file with one sentence a line, or JSON lines (``.jsonl``) with one string or one
object with a ``"text"`` (or ``"sentence"``) field a line. A sentence contains a word when
the word occurs in it as a whole word (not inside a longer word), ignoring case; a
multi-word term must occur with its words in order, separated by white space. The span is
the first occurrence. Of the sentences that contain a word, at most N are kept, drawn
without replacement with a generator seeded by the run's seed and the word (the same word
gets the same sentences whatever other words are asked for), and kept in file order.
"""

from __future__ import annotations

import json
import os
import random
import re
import tomllib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from wefe_same.errors import ModelError
from wefe_same.models.encoders.settings import ENCODER_OPTIONS
from wefe_same.query.files import _bundled_dir as bundled_dir
from wefe_same.validation import read_regular_file

Span = tuple[int, int]
#: (text, the word's character spans in it).
Text = tuple[str, tuple[Span, ...]]

#: Names ``--templates`` takes besides a file path.
TEMPLATE_SETS = ("seat", "seat-names", "seat-terms")
#: A contexts file larger than this is refused (it is read whole, once per process).
MAX_CONTEXTS_BYTES = 1 << 30
_WORD = re.compile(r"\w+")


def article(word: str) -> str:
    """``an`` before a vowel letter or "honor", else ``a``: by spelling, with the exceptions
    of SEAT's generator (May et al. 2019, sent-bias ``scripts/generate_basic_contexts.py``).

    >>> article("engineer"), article("nurse"), article("Umbrella"), article("honorable"), article("European")
    ('an', 'a', 'an', 'an', 'a')
    """
    if word.startswith(("European", "Ukrainian")):
        return "a"
    return "an" if word[:1].lower() in "aeiou" or word.startswith("honor") else "a"


def fill_spans(template: str, word: str) -> Text:
    """The filled template and the spans of each ``{word}`` slot in it.

    >>> fill_spans("This is {a} {word}.", "engineer")
    ('This is an engineer.', ((11, 19),))
    >>> fill_spans("{word} and {word}", "he")
    ('he and he', ((0, 2), (7, 9)))
    """
    text, spans = "", []
    for i, piece in enumerate(template.split("{word}")):
        if i:
            spans.append((len(text), len(text) + len(word)))
            text += word
        text += piece.replace("{a}", article(word))
    return text, tuple(spans)


def template_texts(word: str, templates: Sequence[str], name_templates: Sequence[str] = ()) -> list[Text]:
    """The word in each template: ``name_templates`` for a capitalised word when given."""
    chosen = name_templates if name_templates and word[:1].isupper() else templates
    return [fill_spans(t, word) for t in chosen]


# --------------------------------------------------------------------------- template sets


@lru_cache(maxsize=1)
def seat_templates() -> dict[str, tuple[str, ...]]:
    """The bundled SEAT templates: {"names": …, "terms": …} (``queries/templates/seat.toml``)."""
    data = tomllib.loads((bundled_dir() / "templates" / "seat.toml").read_text(encoding="utf-8"))
    return {"names": tuple(data["names"]["templates"]), "terms": tuple(data["terms"]["templates"])}


def load_template_set(value: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """``seat``, ``seat-names``, ``seat-terms`` or a file → (templates, name templates, label).

    >>> t, names, label = load_template_set("seat")
    >>> t[0], names[0], label
    ('This is {a} {word}.', 'This is {word}.', 'seat')
    """
    if value in TEMPLATE_SETS:
        seat = seat_templates()
        if value == "seat":
            return seat["terms"], seat["names"], "seat"
        return seat[value.split("-")[1]], (), value
    path = Path(value).expanduser()
    if not os.path.lexists(path):
        raise ModelError(f"--templates {value!r}: neither {', '.join(TEMPLATE_SETS)} nor a readable file")
    lines = _read_lines(path, "templates file", 1 << 20)
    templates = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if not templates:
        raise ModelError(f"templates file {path}: holds no template")
    for n, t in enumerate(templates, 1):
        if "{word}" not in t:
            raise ModelError(f"templates file {path}: template {n} ({t!r}) has no {{word}} slot")
    if len(set(templates)) != len(templates):
        twice = next(t for t in templates if templates.count(t) > 1)
        raise ModelError(f"templates file {path}: template {twice!r} is given twice")
    ENCODER_OPTIONS["templates"].check(f"templates file {path}:", "templates", len(templates), ModelError)
    for t in templates:
        ENCODER_OPTIONS["template"].check(f"templates file {path}:", "template", t, ModelError)
    return tuple(templates), (), path.name


def _read_lines(path: Path, what: str, max_bytes: int) -> list[str]:
    """The lines of a UTF-8 text file that must be a regular file under ``max_bytes``
    (:func:`~wefe_same.validation.read_regular_file`: a FIFO or /dev/zero never hangs)."""
    raw = read_regular_file(path, what=what, error=ModelError, max_bytes=max_bytes)
    try:
        return raw.decode("utf-8").splitlines()
    except UnicodeDecodeError as err:
        raise ModelError(f"{what} {path}: cannot be read as UTF-8 text ({err})") from None


def template_options(templates: Sequence[str] | str) -> dict[str, tuple[str, ...] | str | None]:
    """:class:`~wefe_same.models.specs.LoadOptions` fields for ``templates``: sentences with a
    ``{word}`` slot, or one string naming a template set or file (``"seat"``, ``"mine.txt"``).

    >>> template_options(["A {word}."])
    {'templates': ('A {word}.',), 'name_templates': (), 'template_label': None}
    >>> template_options("seat-names")["template_label"]
    'seat-names'
    """
    if isinstance(templates, str) and "{word}" not in templates:
        chosen, names, label = load_template_set(templates)
        return {"templates": chosen, "name_templates": names, "template_label": label}
    items = (templates,) if isinstance(templates, str) else tuple(templates)
    return {"templates": items, "name_templates": (), "template_label": None}


# --------------------------------------------------------------------------- contexts


def read_sentences(path: str | Path) -> list[str]:
    """The sentences of a contexts file (see the module docstring), in file order."""
    p = Path(path)
    lines = _read_lines(p, "contexts file", MAX_CONTEXTS_BYTES)
    if p.suffix.lower() not in (".jsonl", ".ndjson"):
        return [line.strip() for line in lines if line.strip()]
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as err:
            raise ModelError(f"contexts file {p}, line {n}: not JSON ({err})") from None
        except RecursionError:  # [[[[… thousands deep: Python's decoder recurses per level
            raise ModelError(f"contexts file {p}, line {n}: JSON nested too deeply; give a string or an "
                             "object with a 'text' field") from None
        if isinstance(item, dict):
            item = item.get("text", item.get("sentence"))
        if not isinstance(item, str):
            raise ModelError(f"contexts file {p}, line {n}: neither a string nor an object with a 'text' field")
        try:
            item.encode("utf-8")
        except UnicodeEncodeError as err:  # "\ud800" in JSON decodes to a lone surrogate, which is no text
            bad = item[err.start]
            raise ModelError(f"contexts file {p}, line {n}: holds a lone surrogate {bad!r} (an escape "
                             f"\\u{ord(bad):04x} of half a character), which is not text") from None
        out.append(item.strip())
    return out


class Contexts:
    """The sentences of a contexts file with an index from lower-cased word to sentence."""

    def __init__(self, path: str | Path) -> None:
        self.sentences = read_sentences(path)
        if not any(self.sentences):
            raise ModelError(f"contexts file {path}: holds no sentence; give one sentence a line, or JSON lines")
        self._index: dict[str, list[int]] = {}
        for i, sentence in enumerate(self.sentences):
            for token in set(_WORD.findall(sentence.lower())):
                self._index.setdefault(token, []).append(i)

    def containing(self, word: str) -> list[tuple[int, Span]]:
        """(sentence number, span of the first occurrence) of every sentence holding ``word``."""
        tokens = _WORD.findall(word.lower())
        if not tokens:
            return []
        candidates = set(self._index.get(tokens[0], ()))
        for token in tokens[1:]:
            candidates &= set(self._index.get(token, ()))
        pattern = re.compile(r"(?<!\w)" + r"\s+".join(re.escape(w) for w in word.split()) + r"(?!\w)",
                             re.IGNORECASE)
        out = []
        for i in sorted(candidates):
            match = pattern.search(self.sentences[i])
            if match:
                out.append((i, match.span()))
        return out

    def texts(self, word: str, limit: int, seed: int) -> list[Text]:
        """At most ``limit`` sentences holding ``word``, drawn with ``seed`` and the word."""
        found = self.containing(word)
        if len(found) > limit:
            rng = random.Random(f"{seed}\0{word}")  # str seeds hash with sha512: stable across processes
            found = sorted(rng.sample(found, limit))
        return [(self.sentences[i], (span,)) for i, span in found]


def load_contexts(path: str) -> Contexts:
    """A contexts file read once per process (again when its size or modification time changes)."""
    stat = Path(path).stat() if Path(path).is_file() else None
    return _load_contexts(path, None if stat is None else (stat.st_size, stat.st_mtime_ns))


@lru_cache(maxsize=2)
def _load_contexts(path: str, stamp: tuple[int, int] | None) -> Contexts:
    return Contexts(path)
