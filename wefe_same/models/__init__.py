"""Embedding model sources and the built-in catalog."""

from .catalog import CATALOG, catalog_names, default_models, resolve_model, resolve_models
from .sources import ArraySource, ModelSource, TextVectorsSource

__all__ = [
    "CATALOG", "ArraySource", "ModelSource", "TextVectorsSource",
    "catalog_names", "default_models", "resolve_model", "resolve_models",
]
