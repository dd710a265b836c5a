"""Embedding model sources and the built-in catalog.

:mod:`.base` (what every source is), :mod:`.specs` (spec strings and options),
:mod:`.catalog` (the entries and spec resolution), :mod:`.sources` (in-memory and lazy
sources), :mod:`.readers` (one module per file format), :mod:`.encoders`,
:mod:`.debias` (one module per method), :mod:`.gensim_data`.
"""

from wefe_same.models.base import ModelSource
from wefe_same.models.catalog import (
    CATALOG,
    SCHEMES,
    catalog_names,
    default_models,
    resolve_model,
    resolve_models,
)
from wefe_same.models.debias.methods import debias_methods
from wefe_same.models.debias.registry import DebiasMethod
from wefe_same.models.readers import TextVectorsSource
from wefe_same.models.sources import ArraySource
from wefe_same.models.specs import LoadOptions

__all__ = [
    "CATALOG", "SCHEMES", "ArraySource", "DebiasMethod", "LoadOptions", "ModelSource", "TextVectorsSource",
    "catalog_names", "debias_methods", "default_models", "resolve_model", "resolve_models",
]
