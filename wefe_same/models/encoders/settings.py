"""What decides an encoder's vectors, parsed and checked without loading a model: the spec's
options (``hf:NAME,pooling=cls,layer=-2``), templates, names in tables, where the model's
files are (a folder or the local Hugging Face cache) and :class:`EncoderSettings`."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wefe_same.errors import ModelError
from wefe_same.models.specs import TemplateItems
from wefe_same.validation import OptionSpec, shown_value

Backend = Literal["sbert", "hf", "onnx"]
#: Where torch encoders run: ``auto`` is CUDA when torch sees a device, else the CPU.
Device = Literal["auto", "cpu", "cuda"]
DEVICES: tuple[Device, ...] = ("auto", "cpu", "cuda")
Pooling = Literal["mean", "cls", "last", "word-mean", "word-first", "word-last"]
#: ``layer=``: one index into ``hidden_states``, or an inclusive range (mean of those layers).
Layer = int | tuple[int, int]

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
NO_CUDA = ("device 'cuda' (--device cuda): torch sees no CUDA device ({why}); use --device auto (CUDA when "
           "present, else the CPU) or --device cpu")

#: Words or sentences per forward pass. Single words are a few tokens each, so a batch of
#: 256 pads little and halves the per-call overhead of 32 (sentence-transformers' default;
#: measured: benchmarks/RESULTS.md, "Measurements behind the code").
BATCH_SIZE = 256
#: Above this many characters the templates in a model's name become a start and a hash.
LABEL_TEMPLATE_CHARS = 48
#: The option keys each scheme accepts.
SCHEME_OPTIONS: dict[str, tuple[str, ...]] = {
    "sbert": ("revision",),
    "hf": ("pooling", "layer", "revision"),
}
POOLINGS: tuple[Pooling, ...] = ("mean", "cls", "last", "word-mean", "word-first", "word-last")
#: Poolings over the target word's own tokens (found with the tokenizer's offset mapping).
WORD_POOLINGS: tuple[Pooling, ...] = ("word-mean", "word-first", "word-last")
#: ``model_type`` of decoder-only families (``config.json``): their default pooling is
#: ``last``, the one token that has seen the whole input under causal attention.
DECODER_TYPES = frozenset({
    "gpt2", "gpt_neo", "gpt_neox", "gptj", "gpt_bigcode", "codegen", "ctrl", "openai-gpt", "opt", "bloom",
    "falcon", "llama", "mistral", "mixtral", "qwen2", "qwen3", "phi", "phi3", "gemma", "gemma2", "gemma3_text",
    "olmo", "olmo2", "stablelm", "starcoder2", "granite", "cohere", "mpt", "xglm", "smollm3",
})
#: Characters one template may hold: a template is one sentence, and a model reads at most
#: its positions (512 tokens for BERT, about 2 000 characters): a longer one costs tokenizing
#: time per word and is cut to those positions anyway.
MAX_TEMPLATE_CHARS = 2000
#: Templates per word: each is one encoder pass per word.
MAX_TEMPLATES = 200
#: Context sentences per word: each is one encoder pass per word.
MAX_CONTEXTS_PER_WORD = 1000
#: ``layer=`` ends: far beyond any model's depth (the model's own count is checked on load).
MAX_LAYER = 1000
#: Each encoder setting's declared spec (:class:`~wefe_same.validation.OptionSpec`), as the
#: spec options (``hf:NAME,pooling=cls``), ``LoadOptions`` and ``rank()`` take them.
ENCODER_OPTIONS: dict[str, OptionSpec] = {
    "pooling": OptionSpec("choice", choices=POOLINGS),
    "layer": OptionSpec("int", low=-MAX_LAYER, high=MAX_LAYER,
                        why="an index into hidden_states, 0 = embeddings, -1 = last, or a range FIRST:LAST"),
    "revision": OptionSpec("text", high=200, why="a branch, tag or commit of the hub"),
    "template": OptionSpec("text", high=MAX_TEMPLATE_CHARS,
                           why="a template is one sentence; the model reads at most its positions"),
    "templates": OptionSpec("int", low=1, high=MAX_TEMPLATES, why="each template is one encoder pass per word"),
    "contexts_per_word": OptionSpec("int", low=1, high=MAX_CONTEXTS_PER_WORD,
                                    why="each sentence is one encoder pass per word"),
}
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
        constants.HF_HUB_OFFLINE = True  # type: ignore[attr-defined]
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
            restored = (saved_flag if saved_flag is not None else
                        any((os.environ.get(k) or "").upper() in ("1", "ON", "YES", "TRUE")
                            for k in _OFFLINE_VARIABLES))
            constants.HF_HUB_OFFLINE = restored  # type: ignore[attr-defined]


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


def torch_device(device: Device) -> str:
    """The torch device an encoder runs on: ``cpu``, or ``cuda`` (``auto`` when torch sees one).

    ``cuda`` without a CUDA device is a :class:`ModelError` (:func:`check_device` raises it
    before any work); a value other than ``auto``, ``cpu`` or ``cuda`` (``LoadOptions`` built
    by hand) is one too, not a silent ``auto``.
    """
    if device not in DEVICES:
        raise ModelError(f"device {device!r}: choose one of {', '.join(DEVICES)}")
    if device == "cpu":
        return "cpu"
    if importlib.util.find_spec("torch") is None:
        if device == "cuda":
            raise ModelError(NO_CUDA.format(why="torch is not installed: " + TEXT_EXTRA))
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if device == "cuda":
        cuda = torch.version.cuda
        build = "a CPU-only build" if cuda is None else f"built for CUDA {cuda}, no GPU found"
        raise ModelError(NO_CUDA.format(why=f"torch {torch.__version__}, {build}"))
    return "cpu"


def check_device(device: object, func: str) -> Device:
    """``device`` if it is one of :data:`DEVICES`, and for ``cuda`` a device torch sees."""
    from wefe_same.validation import check_choice

    checked: Device = check_choice(device, "device", func, DEVICES)
    if checked == "cuda":
        torch_device(checked)
    return checked


#: CUDA batches: at least CPU's, at most this many texts (beyond, a batch saves nothing).
MAX_CUDA_BATCH = 8192


def cuda_batch_size(free_bytes: int, hidden_size: int, n_layers: int, tokens: int) -> int:
    """Texts per forward pass on a CUDA device with ``free_bytes`` free: a quarter of the free
    memory over what one text of ``tokens`` positions holds at the pass's peak, a power of
    two between :data:`BATCH_SIZE` and :data:`MAX_CUDA_BATCH`.

    A text holds float32 hidden states of every layer (kept when ``layer`` is not the last),
    the current layer's query, key, value, feed-forward (4x) and output buffers (16 more
    hidden-size vectors per token, with room to spare) and its attention scores (a head per
    64 hidden units, scores and probabilities).

    >>> cuda_batch_size(80 * 2**30, 768, 12, 16), cuda_batch_size(80 * 2**30, 768, 12, 128)
    (8192, 1024)
    >>> cuda_batch_size(2 * 2**30, 768, 12, 512)
    256
    """
    tokens, hidden = max(1, tokens), max(1, hidden_size)
    per_text = 4 * tokens * (hidden * (max(1, n_layers) + 1 + 16) + 2 * tokens * max(1, hidden // 64))
    fits = max(1, free_bytes // 4 // per_text)
    size = 1 << (int(fits).bit_length() - 1)
    return int(min(MAX_CUDA_BATCH, max(BATCH_SIZE, size)))


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
        if key == "revision":
            ENCODER_OPTIONS[key].check(f"model spec {spec!r}", key, options[key], ModelError)
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
    if len(templates) > MAX_TEMPLATES:
        ENCODER_OPTIONS["templates"].check("encoder", "templates", len(templates), ModelError)
    for t in templates:
        if not isinstance(t, str):
            raise ModelError(BAD_TEMPLATE.format(template=t, problem="is not a string"))
        if len(t) > MAX_TEMPLATE_CHARS:
            ENCODER_OPTIONS["template"].check("encoder", "template", t, ModelError)
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


def layer_text(layer: Layer) -> str:
    """``layer=`` as the spec writes it: ``-1`` or the inclusive range ``-4:-1``.

    >>> layer_text(-2), layer_text((-4, -1))
    ('-2', '-4:-1')
    """
    return f"{layer[0]}:{layer[1]}" if isinstance(layer, tuple) else str(layer)


def settings_label(*, pooling: str = "mean", layer: Layer = -1, templates: Sequence[str] = (),
                   default_pooling: str = "mean", template_label: str | None = None,
                   contexts: str | None = None, template_items: str = "sentences") -> str:
    """The bracketed suffix that a non-default choice adds to a model's name ("" if none).

    >>> settings_label()
    ''
    >>> settings_label(templates=["This is a {word}."])
    '[template=This is a {word}.]'
    >>> settings_label(pooling="cls", layer=-2, templates=["A {word}.", "The {word}."])
    '[pooling=cls,layer=-2,templates=A {word}. | The {word}.]'
    >>> settings_label(templates=["Here is a much longer sentence that has a {word} in it."])
    '[template=Here is a much longer senten…#20a1b4da]'
    >>> settings_label(pooling="last", layer=(-4, -1), default_pooling="last", template_label="seat")
    '[layer=-4:-1,templates=seat]'
    >>> settings_label(template_label="seat", template_items="words")  # each word one item
    '[templates=seat,template-items=words]'
    """
    parts = []
    if pooling != default_pooling:
        parts.append(f"pooling={pooling}")
    if layer != -1:
        parts.append(f"layer={layer_text(layer)}")
    if template_label:
        parts.append(f"templates={template_label}")
    elif templates:
        key = "template" if len(templates) == 1 else "templates"
        text = " | ".join(templates)
        if len(text) > LABEL_TEMPLATE_CHARS:
            digest = hashlib.sha256(json.dumps(list(templates)).encode("utf-8")).hexdigest()[:8]
            text = f"{text[:28]}…#{digest}" if len(templates) == 1 else f"{len(templates)}#{digest}"
        parts.append(f"{key}={text}")
    if (template_label or templates) and template_items != "sentences":
        parts.append(f"template-items={template_items}")
    if contexts:
        parts.append(f"contexts={contexts}")
    return f"[{','.join(parts)}]" if parts else ""


@dataclass(frozen=True)
class Location:
    """Where a model's files are: a local folder, or a hub name not cached yet."""

    folder: Path | None
    hub_id: str | None = None
    revision: str | None = None  # the hub commit of a cached snapshot

    @property
    def target(self) -> str:
        """What a loader opens: the folder, else the hub name."""
        if self.folder is not None:
            return str(self.folder)
        if self.hub_id is None:
            raise ModelError("a model location needs a folder or a hub name")
        return self.hub_id


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
    pooling : {"mean", "cls", "last", "word-mean", "word-first", "word-last"}
        ``hf`` (all) and ``onnx`` (mean, cls) only.
    layer : int or (int, int)
        ``hf`` only: index into ``hidden_states``, or an inclusive range whose layers are averaged.
    normalize : bool
        ``onnx`` and ``hf``: scale each sentence vector to unit length (a sentence-transformers
        model's own Normalize module, run after the pooling).
    max_length : int or None
        Truncation in tokens (``onnx``; ``hf``: at most the model's positions, this when
        smaller, as a sentence-transformers model's ``max_seq_length``).
    templates : tuple of str
    template_items : {"sentences", "words"}
        With ``templates``: every filled template is an item (a row of the table), or each
        word is one, the mean of its templates' vectors (:class:`~wefe_same.models.specs.LoadOptions`).
    allow_download : bool
    onnx_file, tokenizer_file : str or None
        ``onnx`` only.
    package : str or None
        Distribution the files come from (catalog entries), for the manifest.
    parts : tuple of str
        Slices of a split zip archive that holds the folder (see
        :mod:`wefe_same.models.encoders.parts`); unpacked on first load, and
        fingerprinted instead of the folder.
    archive_root : str or None
        The archive's root folder, with ``parts``.
    cache : bool or str
        :attr:`wefe_same.models.specs.LoadOptions.cache`: where unpacked archives and file
        hashes go (not part of the model's identity).
    name_templates : tuple of str
        Templates for words that start with a capital letter (names), when not empty
        (``--templates seat``); the other words get ``templates``.
    template_label : str or None
        What the model's name shows for its templates (``seat``, a file's name).
    contexts : str or None
        A file of sentences: a word's vector comes from the sentences that contain it
        (:mod:`wefe_same.models.encoders.contexts`).
    contexts_per_word : int
        At most this many sentences per word, drawn with ``seed``.
    seed : int
        Seeds the draw of context sentences.
    trust_pickle : bool
        Allow ``pytorch_model.bin`` (pickled) weights; not part of the identity.
    device : {"auto", "cpu", "cuda"}
        Where a torch encoder runs (``auto``: CUDA when present); not part of the identity
        (the manifest records it; see :meth:`EncoderSource.identity`).
    """

    backend: Backend
    spec: str
    location: str
    revision: str | None = None
    pooling: Pooling = "mean"
    layer: Layer = -1
    normalize: bool = False
    max_length: int | None = None
    templates: tuple[str, ...] = ()
    template_items: TemplateItems = "sentences"
    allow_download: bool = False
    onnx_file: str | None = None
    tokenizer_file: str | None = None
    package: str | None = None
    parts: tuple[str, ...] = ()
    archive_root: str | None = None
    cache: bool | str = True
    name_templates: tuple[str, ...] = ()
    template_label: str | None = None
    contexts: str | None = None
    contexts_per_word: int = 20
    seed: int = 0
    trust_pickle: bool = False
    device: Device = "auto"


def _check_layer(spec: str, layer: Layer, n_layers: int) -> None:
    """``hidden_states`` has n_layers + 1 entries: -(n+1) … n are valid; a range runs forwards."""
    ends = layer if isinstance(layer, tuple) else (layer,)
    for end in ends:
        if not -(n_layers + 1) <= end <= n_layers:
            raise ModelError(BAD_OPTION.format(
                spec=spec, problem=f"layer={layer_text(layer)} is out of range: the model has {n_layers} layers, "
                                   f"so layer must be in {-(n_layers + 1)} … {n_layers} (0 = embeddings, -1 = last)"))
    if isinstance(layer, tuple):
        first, last = (end % (n_layers + 1) for end in layer)
        if first > last:
            raise ModelError(BAD_OPTION.format(
                spec=spec, problem=f"layer={layer_text(layer)} is an empty range: its first layer comes after "
                                   "its last (ranges are inclusive and run forwards, e.g. -4:-1)"))


def parse_layer(spec: str, raw: str) -> Layer:
    """``-1`` → -1; ``-4:-1`` → (-4, -1) (inclusive: the mean of four layers).

    >>> parse_layer("hf:m", "-4:-1"), parse_layer("hf:m", "2")
    ((-4, -1), 2)
    >>> parse_layer("hf:m", "last")
    Traceback (most recent call last):
    ...
    wefe_same.errors.ModelError: model spec 'hf:m': layer='last' is not an integer in [-1000, 1000] or a range
    FIRST:LAST of them
    """
    first, sep, last = raw.partition(":")
    check = ENCODER_OPTIONS["layer"].parse
    ends = [check(first), check(last)] if sep else [check(raw)]
    if None in ends:
        raise ModelError(BAD_OPTION.format(
            spec=spec, problem=f"layer={shown_value(raw)} is not an integer in [-{MAX_LAYER}, {MAX_LAYER}] or a range "
                               "FIRST:LAST of them"))
    return (ends[0], ends[1]) if sep else ends[0]


def _base_name(location: str) -> str:
    """The folder's name, or the last part of a hub name."""
    return Path(location.rstrip("/\\")).name or location


def read_config(folder: Path | None) -> dict:
    """The folder's ``config.json`` (transformers' model config), {} when absent or unreadable."""
    config = folder / "config.json" if folder is not None else None
    if config is None or not config.is_file():
        return {}
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def is_decoder(config: dict) -> bool:
    """A decoder-only model (GPT-2 family, Llama-style): by ``model_type`` or a causal-LM class.

    >>> is_decoder({"model_type": "gpt2"}), is_decoder({"model_type": "bert"})
    (True, False)
    >>> is_decoder({"architectures": ["MyForCausalLM"]})
    True
    """
    if config.get("model_type") in DECODER_TYPES:
        return True
    architectures = config.get("architectures") or []
    return any(isinstance(a, str) and a.endswith("ForCausalLM") for a in architectures)


def default_pooling(config: dict) -> Pooling:
    """``last`` for a decoder-only model, ``mean`` otherwise."""
    return "last" if is_decoder(config) else "mean"


def n_layers_of(config: dict) -> int | None:
    """The number of transformer layers a config declares (BERT's or GPT-2's key)."""
    for key in ("num_hidden_layers", "n_layer"):
        if isinstance(config.get(key), int):
            return int(config[key])
    return None


def _option_values(spec: str, options: dict[str, str], folder: Path | None,
                   *, word_default: bool = False) -> tuple[Pooling, Layer, Pooling]:
    """(pooling, layer, the model's default pooling) of an ``hf:`` spec; ``word_default``:
    ``word-mean`` is the default (a word in a context sentence)."""
    config = read_config(folder)
    default = "word-mean" if word_default else default_pooling(config)
    pooling = ENCODER_OPTIONS["pooling"].check(f"model spec {spec!r}", "pooling", options.get("pooling", default),
                                               ModelError)
    layer = parse_layer(spec, options.get("layer", "-1"))
    n_layers = n_layers_of(config)
    if n_layers is not None:
        _check_layer(spec, layer, n_layers)  # fail now, before any model is read
    return pooling, layer, default
