"""Sentence and token encoders as models: ``sbert:``, ``hf:`` and the backends of the catalog
encoders (whose entries live in :mod:`wefe_same.models.catalog`).

An encoder has no vocabulary: it turns any string into a vector. The framework asks it
for the words of a run, as it asks a static model (:meth:`EncoderSource.lookup`).

What vector a word gets
-----------------------
A word becomes one or more texts, each with the word's character span(s) in it
(:mod:`.contexts`):

- **Alone** (default): the word is the whole text.
- **In templates** (``LoadOptions.templates``: the CLI's repeatable ``--template``, or
  ``--templates seat|seat-names|seat-terms|FILE``): each template's ``{word}`` slot is
  replaced by the word (``{a}`` by "a"/"an"); ``seat`` is May et al. (2019)'s bleached
  templates, bundled in ``queries/templates/seat.toml`` (names for capitalised words,
  terms for the others).
- **In context** (``LoadOptions.contexts``, ``--contexts FILE``): up to
  ``contexts_per_word`` sentences of the file that contain the word (whole word, any
  case), drawn with the run's seed; a word in no sentence has no vector (``missing``),
  and the manifest lists how many sentences each word got (``context_counts``).

Each text is encoded and pooled; the word's vector is the arithmetic mean over its texts,
not renormalised (the framework normalises every vector once). ``sbert:`` is
``SentenceTransformer(folder).encode(texts)`` (the model's own pooling; for
all-MiniLM-L6-v2: mean of the last layer, [CLS] and [SEP] included, then unit length).
``hf:`` runs ``AutoModel`` and pools one hidden layer, or the mean of a range of layers:

=============  =====================================================================
pooling        the vector of a text
=============  =====================================================================
``mean``       mean over every token the attention mask keeps, special tokens included
               (default for encoders such as BERT and RoBERTa)
``cls``        the first token ([CLS], ``<s>``; a decoder's first token)
``last``       the last token the mask keeps ([SEP], ``</s>``; for a decoder the one
               token that has seen the whole text: default for decoder-only models,
               by ``model_type`` (GPT-2, Llama, Mistral, Qwen, …) or a ``*ForCausalLM`` class)
``word-mean``  mean over the word's own tokens: those whose character offsets (the
               tokenizer's offset mapping) overlap the word; a word split into several
               subwords has them all. Default with ``--contexts``
``word-first`` the first of the word's tokens
``word-last``  the last of the word's tokens (CEAT's choice)
=============  =====================================================================

A text whose word tokens were all cut off by truncation gives no vector for that word.
A tokenizer without a pad token (GPT-2's) pads with its end-of-sequence token on the
right; the attention mask keeps padding out of every token and every pooling, so a text
gets the same vector alone or in a batch. A text longer than the model's positions is cut
to them with a warning that says how many texts were cut.

Spec syntax
-----------
``sbert:NAME_OR_PATH[,revision=REV]`` and
``hf:NAME_OR_PATH[,pooling=P][,layer=N|FIRST:LAST][,revision=REV]``. ``layer`` indexes
the model's ``hidden_states`` as transformers returns them: 0 is the embedding layer,
1 … L the transformer layers, -1 the last (default), -2 the one before; ``FIRST:LAST`` is
an inclusive range whose layers are averaged (``-4:-1``: the last four). A path may not
contain a comma (everything after the first comma is options). ``--vary pooling=…
layer=…`` makes one variant of each ``hf:`` model per combination (:mod:`.vary`).

Weights: ``.safetensors`` are always loaded; pickled weights (``pytorch_model.bin``,
``.pt``, …) only with ``trust_pickle`` (``--trust-pickle``), since loading a pickle can
run code; where both stand in a folder, only the safetensors file is read.

NAME_OR_PATH is a local folder, or a Hugging Face hub name (``org/name``) that is
already in the local Hugging Face cache. Nothing is downloaded unless
``LoadOptions.allow_download`` is true (and ``HF_HUB_OFFLINE`` is not set): models are
found and loaded with ``HF_HUB_OFFLINE=1`` (:func:`hub_offline`).

How a word is encoded
---------------------
In evaluation mode (no dropout), under ``torch.inference_mode()``, in batches of
:data:`BATCH_SIZE` distinct texts sorted by length (less padding), on CUDA when present
(``device``: ``auto``, ``cpu`` or ``cuda``; on CUDA larger batches, sized from its free memory): on
the CPU the same words give the same bytes on the same machine and libraries; on CUDA the
batches follow the free memory of the moment, so the last float32 bits may differ between
runs (as between two devices; the cache key holds neither). The cache key (:meth:`EncoderSource.identity`)
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
file names. The default pooling is the model's (``last`` for a decoder, ``word-mean`` in
context), so ``gpt2`` is GPT-2 with ``last`` and ``gpt2[pooling=mean]`` is not. A template
set or file shows as its name (``[templates=seat]``), contexts as the file and the number
per word (``[contexts=reddit.txt:20]``). A ``NAME=`` given by the user is used as it is.

Modules: :mod:`.settings` (spec options, templates, names, locations, weights), :mod:`.weights`
(safetensors headers checked before loading),
:mod:`.contexts` (templates, template sets, context sentences), :mod:`.vary` (``--vary``),
:mod:`.source` (:class:`EncoderSource`, the ``sbert:``/``hf:`` builders),
:mod:`.torch_backends`, :mod:`.tokens` (tokenizers and tokenized texts shared by the
models of a process), :mod:`.onnx`, :mod:`.parts` (models split over several
packages) and :mod:`.hashing` (the files' sha256, remembered by file stats).

The heavy libraries (torch, transformers, sentence-transformers, onnxruntime) are
imported inside functions only: importing this package costs nothing.
"""

from wefe_same.models.encoders.hashing import file_sha256, files_sha256, folder_files
from wefe_same.models.encoders.onnx import OnnxBackend
from wefe_same.models.encoders.parts import unpack_split_zip
from wefe_same.models.encoders.settings import (
    BATCH_SIZE,
    LABEL_TEMPLATE_CHARS,
    TEXT_EXTRA,
    EncoderSettings,
    Location,
    check_templates,
    fill,
    hub_offline,
    locate,
    parse_options,
    require,
    settings_label,
)
from wefe_same.models.encoders.source import (
    ENCODER_SCHEMES,
    EncoderSource,
    context_settings,
    encoder_cache,
    hf_source,
    sbert_source,
)

__all__ = [
    "BATCH_SIZE", "ENCODER_SCHEMES", "LABEL_TEMPLATE_CHARS", "TEXT_EXTRA", "EncoderSettings", "EncoderSource",
    "Location", "OnnxBackend", "check_templates", "context_settings", "encoder_cache", "file_sha256",
    "files_sha256", "fill", "folder_files", "hf_source", "hub_offline", "locate", "parse_options", "require",
    "sbert_source",
    "settings_label", "unpack_split_zip",
]
