"""A persistent cache of per-model work: a run's vectors, scores, quality rows and more.

Five kinds of entry, each keyed by what decides its content (:mod:`.keys`), stored in a
checked container that is not a pickle (:mod:`.codec`), by :class:`ModelCache`
(:mod:`.store`) in the directory :mod:`.location` finds:

- **vectors**: the :class:`~wefe_same.scoring.vectors.VectorTable` of a run's words (exact
  float64 rows, the lookup statuses) and the model's description;
- **scores**: a :class:`~wefe_same.scoring.scores.ModelScores` (tables with their dtypes
  kept exactly, and any draw arrays);
- **quality**: a model's quality benchmark rows, so that a cached run opens no model file;
- **likelihood**: a language model's likelihood tables (figures and per-item scores);
- **lipstick**: a debiased variant's lipstick-test rows beside its base.
"""

from wefe_same.run.cache.keys import (
           LIKELIHOOD_CODE,
           LIPSTICK_CODE,
           QUALITY_CODE,
           VECTORS_CODE,
           likelihood_key,
           lipstick_key,
           quality_key,
           scores_key,
           vectors_key,
)
from wefe_same.run.cache.location import (
           CACHE_UNUSABLE,
           ENV_VAR,
           check_cache,
           default_cache_dir,
)
from wefe_same.run.cache.store import (
           DAMAGED,
           KINDS,
           NOT_WRITTEN,
           CacheStatus,
           Kind,
           ModelCache,
)

__all__ = ["CACHE_UNUSABLE", "DAMAGED", "ENV_VAR", "KINDS", "LIKELIHOOD_CODE", "LIPSTICK_CODE", "NOT_WRITTEN",
           "QUALITY_CODE", "VECTORS_CODE", "CacheStatus", "Kind", "ModelCache", "check_cache", "default_cache_dir",
           "likelihood_key", "lipstick_key", "quality_key", "scores_key", "vectors_key"]
