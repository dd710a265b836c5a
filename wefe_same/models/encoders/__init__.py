"""Sentence and token encoders as models: ``sbert:``, ``hf:`` and the backends of the catalog
encoders (whose entries live in :mod:`wefe_same.models.catalog`).

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

Modules: :mod:`.settings` (spec options, templates, names, locations),
:mod:`.source` (:class:`EncoderSource`, the ``sbert:``/``hf:`` builders),
:mod:`.torch_backends`, :mod:`.onnx`, :mod:`.parts` (models split over several
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
