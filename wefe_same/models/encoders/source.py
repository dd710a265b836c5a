"""The encoder as a model source: :class:`EncoderSource` (loaded lazily, in each process
that uses it) and the ``sbert:`` and ``hf:`` spec builders."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import warnings
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal

import numpy as np

from wefe_same.cachedir import encoders_dir
from wefe_same.errors import ModelError, WefeSameWarning
from wefe_same.models.base import ModelSource
from wefe_same.models.encoders.contexts import Span, Text, load_contexts, template_texts
from wefe_same.models.encoders.hashing import files_sha256, folder_files, known_sha256
from wefe_same.models.encoders.onnx import OnnxBackend
from wefe_same.models.encoders.parts import unpack_split_zip
from wefe_same.models.encoders.settings import (
    _LIBRARIES,
    BATCH_SIZE,
    ENCODER_OPTIONS,
    WORD_POOLINGS,
    EncoderSettings,
    Layer,
    Location,
    Pooling,
    _base_name,
    _option_values,
    check_templates,
    hub_offline,
    layer_text,
    locate,
    parse_options,
    require,
    settings_label,
    torch_device,
)
from wefe_same.models.encoders.torch_backends import _HfBackend, _SbertBackend
from wefe_same.models.encoders.weights import check_safetensors, check_weights
from wefe_same.models.specs import TEMPLATE_ITEMS, LoadOptions
from wefe_same.validation import check_choice
from wefe_same.versions import package_version

#: A distribution's version, read from its metadata once per process (~2 ms a read: each
#: model's identity and description asked for three). The libraries a process has imported
#: are the ones that encode, whatever a later installation changes on disk.
_version = cache(package_version)
CUT_OFF = ("model {model!r}: {n} word(s) lie past the model's {positions}positions in every text they are "
           "encoded in and are marked missing (first: {first!r}); use shorter templates or context sentences")


def encoder_cache(settings: EncoderSettings) -> Path:
    """The encoders' folder of the one cache directory (unpacked archives, the sha256 store),
    or a scratch folder when the run's cache is off."""
    return encoders_dir(settings.cache)


class EncoderSource(ModelSource):
    """A sentence or token encoder, loaded lazily, in each process that uses it.

    A :class:`~wefe_same.models.base.ModelSource` with ``identity()`` and
    ``open_vocabulary``; ``has_vocabulary`` is False: an encoder cannot list its words, so
    analogy benchmarks that search a vocabulary say so for it.

    Pickling keeps the settings only (no loaded model): a worker process loads the model
    again on its first :meth:`lookup`.
    """

    #: Every string has a vector: a caller that tries casing variants of a word only when
    #: the word itself is unknown can ask for the words alone (half the encoding work).
    open_vocabulary = True

    def __init__(self, name: str, settings: EncoderSettings, *, batch_size: int = BATCH_SIZE,
                 progress: bool | None = None, threads: int | None = None) -> None:
        self.name = name
        self.settings = settings
        self.batch_size = int(batch_size)
        self.progress = progress
        #: torch's intra-op threads while this source encodes on the CPU (None: torch's own).
        self.threads = threads
        self._backend: Any = None
        #: The batch size of the last lookup (on CUDA chosen for the device's free memory).
        self.used_batch_size: int | None = None
        #: Per word, how many context sentences the last lookup found (``contexts`` only).
        self.context_counts: dict[str, int] | None = None
        #: The words of the last lookup that lay past the model's positions in all their texts.
        self.cut_off: list[str] = []

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
            return Location(folder=unpack_split_zip(s.spec, [Path(p) for p in s.parts], str(s.archive_root),
                                                    cache=encoder_cache(s)))
        return locate(s.spec, s.location, revision=s.revision, allow_download=s.allow_download)

    def _load(self) -> Any:
        if self._backend is None:
            s = self.settings
            with hub_offline(s.allow_download):
                if s.backend == "onnx":
                    self._backend = OnnxBackend(s)
                elif s.backend == "sbert":
                    self._backend = _SbertBackend(s, self._location())
                else:
                    self._backend = _HfBackend(s, self._location())
        return self._backend

    def language_model(self) -> tuple[str | None, str]:
        """The encoder's folder (whether it holds a language-model head is read from its
        config when it is loaded for the likelihood scores); ONNX files have none."""
        if self.settings.backend == "onnx":
            return None, "ONNX encoder: no language-model head"
        folder = self._location().folder
        if folder is None:
            return None, "not in the local hub cache"
        return str(folder), ""

    def import_runtime(self) -> None:
        """Import the libraries that :meth:`lookup` will load the model with (none missing:
        an import error is left to the load, which names the model)."""
        names = {"onnx": ("onnxruntime", "tokenizers"), "sbert": ("torch", "transformers", "sentence_transformers")}
        for name in names.get(self.settings.backend, ("torch", "transformers")):
            if importlib.util.find_spec(name) is not None:
                importlib.import_module(name)
        if self.settings.backend == "hf" and "transformers" in sys.modules:
            from transformers import AutoModel, AutoTokenizer  # noqa: F401 (lazy attributes: their modules)

    # ------------------------------------------------------------------ protocol
    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        """Every word's vector; see the module docstring and :meth:`lookup_matrix`."""
        words = sorted(set(words))
        matrix, has = self.lookup_matrix(words)
        return {w: matrix[i] for i, w in enumerate(words) if has[i]}

    def _new_lookup(self, words: Sequence[str], method: str) -> list[str]:
        """``words`` as a list (refused unless sorted and distinct); the previous lookup's
        context counts and cut-off words are forgotten."""
        words = list(words)
        if any(a >= b for a, b in pairwise(words)):
            raise ValueError(f"EncoderSource.{method} takes sorted, distinct words")
        self.context_counts = None
        self.cut_off = []
        return words

    def lookup_matrix(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Sorted distinct ``words``' vectors as rows of one float64 matrix, and which words have one.

        Each word becomes one or more texts (alone, in templates, in context sentences) with
        the word's character spans; the distinct texts are encoded in batches of
        :attr:`batch_size`, sorted by length, so the same word set gives the same bytes. A
        word's vector is the mean over its texts (a text whose word tokens were all cut off
        by truncation does not count); a word with no text (no context sentence holds it)
        gets no vector and is reported missing.
        """
        words = self._new_lookup(words, "lookup_matrix")
        if not words:
            return np.zeros((0, 0)), np.zeros(0, dtype=bool)
        s = self.settings
        word_level = s.pooling in WORD_POOLINGS
        if s.contexts is None and not s.templates:
            # Each word is its own one text (the default run): its vector is its encoded row,
            # the same bytes as the general path below, without a dict entry per text.
            backend = self._load()
            encoded = self._encode(backend, words, [((0, len(w)),) for w in words] if word_level else None)
            matrix = encoded.astype(np.float64)
            if not word_level:
                return matrix, np.ones(len(words), dtype=bool)
            has = np.asarray(np.isfinite(matrix).all(axis=1))
            matrix[~has] = 0.0
            matrix += 0.0  # the mean of one row, as below: 0.0 + x, so -0.0 becomes 0.0
            return matrix, has
        texts = self.texts(words)
        self.context_counts = {w: len(texts[w]) for w in words} if s.contexts is not None else None
        backend = self._load()
        texts = self._drop_cut_off(backend, words, texts)
        # Sentence poolings: one vector per distinct text; word poolings: per text and span.
        keys = sorted({item if word_level else (item[0], ()) for w in words for item in texts[w]})
        if not keys:  # no word has a text (no context sentence holds any): every word is missing
            return np.zeros((len(words), getattr(backend, "dim", None) or 1)), np.zeros(len(words), dtype=bool)
        row = {k: i for i, k in enumerate(keys)}
        encoded = self._encode(backend, [k[0] for k in keys], [k[1] for k in keys] if word_level else None)
        if not word_level:
            return _mean_rows(encoded, [[row[(item[0], ())] for item in texts[w]] for w in words])
        matrix = np.zeros((len(words), encoded.shape[1]))
        has = np.zeros(len(words), dtype=bool)
        for i, w in enumerate(words):
            if not texts[w]:
                continue
            rows = encoded[[row[item] for item in texts[w]]].astype(np.float64)
            rows = rows[np.isfinite(rows).all(axis=1)]
            if len(rows):
                matrix[i] = rows.mean(axis=0)
                has[i] = True
        return matrix, has

    @property
    def sentence_items(self) -> bool:
        """Whether every filled template is an item of its word's set (``template_items``
        "sentences", the default with templates): tables then come from :meth:`lookup_items`."""
        s = self.settings
        return bool(s.templates) and s.contexts is None and s.template_items == "sentences"

    def lookup_items(self, words: Sequence[str]) -> tuple[list[str], np.ndarray, dict[str, tuple[int, ...]]]:
        """Every filled template of sorted distinct ``words`` encoded alone, as SEAT (May et
        al. 2019) and bias-bench do: (the sorted distinct sentences, their float64 rows, each
        word's rows in template order). A sentence in which the word is cut off by truncation
        is left out; a word left with none has no rows (reported missing, with a warning).
        The rows are the very vectors that ``template_items="words"`` averages per word."""
        words = self._new_lookup(words, "lookup_items")
        if not words:
            return [], np.zeros((0, 0)), {}
        backend = self._load()
        texts = self._drop_cut_off(backend, words, self.texts(words))
        word_level = self.settings.pooling in WORD_POOLINGS
        keys = sorted({item if word_level else (item[0], ()) for w in words for item in texts[w]})
        if not keys:
            return [], np.zeros((0, 0)), {}
        row = {k: i for i, k in enumerate(keys)}
        encoded = self._encode(backend, [k[0] for k in keys], [k[1] for k in keys] if word_level else None)
        items = {w: tuple(row[item if word_level else (item[0], ())] for item in texts[w]) for w in words if texts[w]}
        return [k[0] for k in keys], encoded.astype(np.float64), items

    def _drop_cut_off(self, backend: Any, words: Sequence[str], texts: dict[str, list[Text]]) -> dict[str, list[Text]]:
        """``texts`` without those in which the word lies past the model's positions: truncation
        keeps a text's start, so a word there would get the vector of the rest of the text
        (every word the same one, in one template), whatever the pooling. A word left with
        no text is missing, with one warning per model naming how many, and the first."""
        distinct = sorted({text for w in words for text, _ in texts[w]})
        ends = backend.kept_chars(distinct) if distinct else None
        if ends is None:
            return texts
        kept = dict(zip(distinct, ends))
        out = {w: [(text, spans) for text, spans in texts[w] if any(a < kept[text] for a, _ in spans)] for w in words}
        self.cut_off = [w for w in words if texts[w] and not out[w]]
        if self.cut_off:
            positions = getattr(backend, "max_length", None) or self.settings.max_length
            warnings.warn(CUT_OFF.format(model=self.name, n=len(self.cut_off), first=self.cut_off[0],
                                         positions=f"{positions} " if positions else ""),
                          WefeSameWarning, stacklevel=2)
        return out

    def texts(self, words: Sequence[str]) -> dict[str, list[Text]]:
        """Per word, the texts it is encoded in and its character spans in each."""
        s = self.settings
        if s.contexts is not None:
            contexts = load_contexts(s.contexts)
            return {w: contexts.texts(w, s.contexts_per_word, s.seed) for w in words}
        if s.templates:
            return {w: template_texts(w, s.templates, s.name_templates) for w in words}
        return {w: [(w, ((0, len(w)),))] for w in words}

    def _encode(self, backend: Any, texts: Sequence[str],
                spans: Sequence[tuple[Span, ...]] | None = None) -> np.ndarray:
        """One float32 row per text; ``texts`` (with their ``spans``) distinct and sorted."""
        from tqdm.auto import tqdm

        # Batches of texts of the same number of tokens pad least, so texts are batched in
        # order of their token counts. The order is
        # a fixed function of the texts, and the rows are put back after: by tokens, then
        # characters, then the texts' (and spans') own order, which the caller sorted.
        counts = backend.token_counts(texts) or [0] * len(texts)
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        order = np.lexsort((np.arange(len(texts)), lengths, np.asarray(counts, dtype=np.int64))).tolist()
        texts = [texts[i] for i in order]
        ordered_spans = [spans[i] for i in order] if spans is not None else None
        # CPU: batch_size; CUDA: as many texts as the device's free memory holds.
        size = self.used_batch_size = backend.batch_size(texts, self.batch_size)
        starts = range(0, len(texts), size)
        # disable=None: tqdm shows the bar only on a terminal.
        disable = True if len(starts) < 2 else (None if self.progress is None else not self.progress)
        parts = []
        with _torch_threads(backend, self.threads), tqdm(total=len(texts), disable=disable, unit="text",
                                                         desc=f"encoding {self.name}", leave=False) as bar:
            for i in starts:
                chunk = list(texts[i:i + size])
                if ordered_spans is None:
                    parts.append(np.asarray(backend.encode(chunk), dtype=np.float32))
                else:
                    parts.append(np.asarray(backend.encode(chunk, ordered_spans[i:i + size]), dtype=np.float32))
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
                                                     if k not in ("spec", "allow_download", "parts", "cache")}}
        key["templates"] = list(s.templates)
        key["name_templates"] = list(s.name_templates)
        key["layer"] = layer_text(s.layer)
        key.pop("trust_pickle", None)  # where the weights may come from, not what they are
        # Where they are computed, not what they are: CPU and CUDA vectors differ in the last
        # float32 bits only (as two CPUs' BLAS do, or a batch size), far below any score's
        # precision, so a cache filled on one device serves the other; the manifest says
        # which device computed them (describe()).
        key.pop("device", None)
        key.pop("template_label", None)
        if not s.templates or s.contexts is not None:
            key.pop("template_items", None)  # decides nothing without templates
        if s.contexts is None:
            for unused in ("contexts", "contexts_per_word", "seed"):
                key.pop(unused, None)
        else:
            key["contexts"] = Path(s.contexts).name
            key["contexts_sha256"] = files_sha256([Path(s.contexts)], store_dir=encoder_cache(s))
        key["parts"] = [Path(p).name for p in s.parts]
        if s.parts:  # a split archive is identified by its slices: nothing is unpacked
            key["files_sha256"] = files_sha256([Path(p) for p in s.parts], store_dir=encoder_cache(s))
        else:
            loc = self._location()
            if loc.hub_id is not None:
                key["hub_id"] = loc.hub_id
                key["hub_revision"] = loc.revision or "unresolved: " + (s.revision or "main")
            if loc.folder is not None and (loc.hub_id is None or s.backend == "onnx"):
                key["files_sha256"] = _model_files_sha256(s, loc.folder)
        if s.package:
            key["package_version"] = _version(s.package)
        key["libraries"] = {d: _version(d) for d in _LIBRARIES[s.backend]}
        return key

    def describe(self) -> dict[str, str]:
        """Provenance for the manifest: kind, files and their sizes, revision, settings, device.

        Reads no model file: the files' sha256 are given only when already known for their
        current version (:meth:`identity`, which the cache key needs, computed them in this
        process or remembered them in the cache folder); a ``--no-cache`` run does not hash
        weights it does not need.
        """
        s = self.settings
        out: dict[str, str] = {"kind": s.backend}
        loc = self._location()
        if not s.parts and loc.hub_id is not None:
            out["hub_id"] = loc.hub_id
            out["hub_revision"] = loc.revision or "unresolved: " + (s.revision or "main")
        if s.package:
            out["package"] = s.package
            if version := _version(s.package):
                out["package_version"] = str(version)
        files = self._defining_files(loc)
        if files:
            out["file_sizes"] = json.dumps({name: path.stat().st_size for name, path in files.items()}, sort_keys=True)
            hashes = known_sha256(list(files.values()), encoder_cache(s))
            if all(hashes):
                out["files_sha256"] = json.dumps(dict(zip(files, hashes)), sort_keys=True)
        if loc.folder is not None:
            out["path"] = str(loc.folder)
        if s.backend == "onnx":
            out["onnx_file"] = str(s.onnx_file)
            out["tokenizer_file"] = str(s.tokenizer_file)
        if s.backend != "sbert":
            out["pooling"] = s.pooling
        if s.backend == "hf":
            out["layer"] = layer_text(s.layer)
        if s.backend == "onnx" or s.normalize:
            out["normalize"] = str(s.normalize).lower()
        if s.backend == "hf" and s.max_length is not None:
            out["max_length"] = str(s.max_length)
        out["templates"] = json.dumps(list(s.templates), ensure_ascii=False)
        if s.name_templates:
            out["name_templates"] = json.dumps(list(s.name_templates), ensure_ascii=False)
        if s.contexts is not None:
            out["contexts"] = str(s.contexts)
            out["contexts_per_word"] = str(s.contexts_per_word)
            if self.context_counts is not None:
                counts = self.context_counts
                out["context_counts"] = json.dumps(counts, ensure_ascii=False, sort_keys=True)
                out["words_without_context"] = str(sum(1 for n in counts.values() if n == 0))
        if self.cut_off:
            out["cut_off_words"] = json.dumps(self.cut_off, ensure_ascii=False)
        out["batch_size"] = str(self.used_batch_size or self.batch_size)
        out["device"] = self._backend.device if self._backend is not None else _default_device(s)
        if self._backend is not None and self._backend.dim:
            out["dim"] = str(self._backend.dim)
        for dist in _LIBRARIES[s.backend]:
            out[dist] = str(_version(dist))
        return out

    def _defining_files(self, loc: Any) -> dict[str, Path]:
        """{name: path} of the files whose sha256 :meth:`identity` holds (the slices of a
        split archive, the ONNX and tokenizer files, or the model folder's files), sorted;
        empty for a hub snapshot (identified by its commit)."""
        s = self.settings
        if s.parts:
            paths, root = sorted(Path(p) for p in s.parts), None
        elif loc.folder is None or (loc.hub_id is not None and s.backend != "onnx"):
            return {}
        elif s.backend == "onnx":
            paths, root = sorted(Path(f) for f in (s.onnx_file, s.tokenizer_file) if f), None
        else:
            paths, root = sorted(folder_files(loc.folder)), loc.folder
        return {p.relative_to(root).as_posix() if root is not None else p.name: p for p in paths}


@contextmanager
def _torch_threads(backend: Any, threads: int | None) -> Iterator[None]:
    """torch's intra-op threads set to ``threads`` while a torch backend encodes on the CPU,
    restored afterwards (the setting is the process's)."""
    if threads is None or isinstance(backend, OnnxBackend) or backend.device != "cpu":
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(max(1, int(threads)))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _mean_rows(encoded: np.ndarray, rows_of: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(float64 matrix of each word's mean of its rows of ``encoded``, which words have a row).

    The words with the same number of rows are averaged together, one NumPy call per
    count (a word alone: one row, its float64 copy): the same bytes as a ``mean(axis=0)``
    per word (both add the rows in order, then divide), without a NumPy call per word.
    """
    by_count: dict[int, list[int]] = {}
    for i, rows in enumerate(rows_of):
        if rows:
            by_count.setdefault(len(rows), []).append(i)
    matrix = np.zeros((len(rows_of), encoded.shape[1]))
    has = np.zeros(len(rows_of), dtype=bool)
    for count, members in by_count.items():
        index = np.array([rows_of[i] for i in members], dtype=np.intp)  # (words, count)
        block = encoded[index].astype(np.float64)  # (words, count, d)
        matrix[members] = block[:, 0] if count == 1 else block.mean(axis=1)
        has[members] = True
    return matrix, has


def _model_files_sha256(s: EncoderSettings, folder: Path) -> dict[str, str]:
    if s.backend == "onnx":
        return files_sha256([Path(f) for f in (s.onnx_file, s.tokenizer_file) if f], store_dir=encoder_cache(s))
    return files_sha256(folder_files(folder), folder, store_dir=encoder_cache(s))


def _default_device(s: EncoderSettings) -> str:
    if s.backend == "onnx":
        return "CPUExecutionProvider"
    return torch_device(s.device)


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
    if loc.folder is not None:
        check_weights(spec, loc.folder, trust_pickle=options.trust_pickle)
        check_safetensors(spec, loc.folder, encoders_dir(options.cache))
    pooling: Pooling
    layer: Layer
    if scheme == "hf":
        pooling, layer, default = _option_values(spec, opts, loc.folder, word_default=options.contexts is not None)
    else:
        pooling, layer, default = "mean", -1, "mean"
    settings = EncoderSettings(
        backend=scheme, spec=spec, location=str(loc.folder) if loc.hub_id is None else path,
        revision=revision, pooling=pooling, layer=layer, templates=templates,
        allow_download=options.allow_download, cache=options.cache, trust_pickle=options.trust_pickle,
        **context_settings(options),
    )
    label = name or _base_name(path) + source_label(settings, default_pooling=default)
    return EncoderSource(label, settings)


def context_settings(options: LoadOptions) -> dict[str, Any]:
    """The EncoderSettings fields every encoder takes from the run's options: what text a word
    is encoded in (beside ``templates``), and the device it runs on."""
    return {"name_templates": check_templates(options.name_templates), "template_label": options.template_label,
            "template_items": check_choice(options.template_items, "template_items", "encoder", TEMPLATE_ITEMS),
            "contexts": None if options.contexts is None else str(Path(options.contexts).resolve()),
            "contexts_per_word": ENCODER_OPTIONS["contexts_per_word"].check(
                "encoder", "contexts_per_word", options.contexts_per_word, ModelError),
            "seed": options.seed, "device": options.device}


def source_label(s: EncoderSettings, *, default_pooling: str = "mean") -> str:
    """The bracketed suffix of an encoder's name (see :func:`settings_label`)."""
    return settings_label(pooling=s.pooling, layer=s.layer, templates=s.templates, default_pooling=default_pooling,
                          template_label=s.template_label, template_items=s.template_items,
                          contexts=None if s.contexts is None else f"{Path(s.contexts).name}:{s.contexts_per_word}")


def sbert_source(name: str | None, location: str, options: LoadOptions) -> EncoderSource:
    """``sbert:NAME_OR_PATH[,revision=REV]``: a sentence-transformers model."""
    return _scheme_builder("sbert", name, location, options)


def hf_source(name: str | None, location: str, options: LoadOptions) -> EncoderSource:
    """``hf:NAME_OR_PATH[,pooling=POOLING][,layer=INT|FIRST:LAST][,revision=REV]``: a transformers model."""
    return _scheme_builder("hf", name, location, options)


#: ``SCHEME:`` builders to register in :data:`wefe_same.models.catalog.SCHEMES`.
ENCODER_SCHEMES = {"sbert": sbert_source, "hf": hf_source}
