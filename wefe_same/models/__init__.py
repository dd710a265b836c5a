"""Embedding model sources and the built-in catalog."""

from wefe_same.models.catalog import CATALOG, SCHEMES, VARIANTS, catalog_names, default_models, resolve_model, resolve_models
from wefe_same.models.options import LoadOptions
from wefe_same.models.sources import ArraySource, ModelSource, TextVectorsSource

__all__ = [
    "CATALOG", "SCHEMES", "VARIANTS", "ArraySource", "LoadOptions", "ModelSource", "TextVectorsSource",
    "catalog_names", "default_models", "resolve_model", "resolve_models",
]
