"""Embedding model sources and the built-in catalog."""

from .catalog import CATALOG, SCHEMES, VARIANTS, catalog_names, default_models, resolve_model, resolve_models
from .options import LoadOptions
from .sources import ArraySource, ModelSource, TextVectorsSource

__all__ = [
    "CATALOG", "SCHEMES", "VARIANTS", "ArraySource", "LoadOptions", "ModelSource", "TextVectorsSource",
    "catalog_names", "default_models", "resolve_model", "resolve_models",
]
