"""``--vary pooling=mean,cls layer=-1,-4:-1``: each ``hf:`` model as one varied model
per combination of measurement settings, so that a run ranks them all and the analysis can
ask whether the ranking of the models survives the choice (Seshadri et al. 2022;
Delobelle et al. 2022 show that it often does not).

A varied model is named ``BASE[pooling=P,layer=L]`` with every varied key spelt out (also a
default value), so that the settings of one model and the models of one setting can be
read off the names; :func:`varied_models` returns that table too. Models that are not ``hf:``
specs (static models, ``sbert:`` and catalog encoders, whose pooling is their own) are
kept as they are: they are the same model under every setting.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource
from wefe_same.models.encoders.settings import ENCODER_OPTIONS, _base_name, layer_text, parse_layer, parse_options
from wefe_same.models.specs import split_name

#: What ``--vary`` can vary, in the order names show them.
VARY_KEYS = ("pooling", "layer")


@dataclass(frozen=True)
class VariedModel:
    """One model under one setting: the model it varies, and the setting as ``key=value,…``."""

    name: str
    base: str
    setting: str


def parse_vary(items: Sequence[str] | str | Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """``["pooling=mean,cls", "layer=-1,-4:-1"]`` → {"pooling": ("mean", "cls"), "layer": ("-1", "-4:-1")}.

    >>> parse_vary(["pooling=mean,cls", "layer=-1,-4:-1"])
    {'pooling': ('mean', 'cls'), 'layer': ('-1', '-4:-1')}
    >>> parse_vary("pool=mean")
    Traceback (most recent call last):
    ...
    wefe_same.errors.ModelError: --vary 'pool=mean': can vary pooling, layer (KEY=VALUE,VALUE,…)
    """
    if isinstance(items, Mapping):
        pairs = [(str(k), [str(v) for v in values]) for k, values in items.items()]
    else:
        pairs = []
        for item in [items] if isinstance(items, str) else items:
            key, sep, text = str(item).partition("=")
            if not sep or key.strip() not in VARY_KEYS or not text.strip():
                raise ModelError(f"--vary {item!r}: can vary {', '.join(VARY_KEYS)} (KEY=VALUE,VALUE,…)")
            pairs.append((key.strip(), [v.strip() for v in text.split(",")]))
    out: dict[str, tuple[str, ...]] = {}
    for key, values in pairs:
        if key not in VARY_KEYS:
            raise ModelError(f"--vary {key!r}: can vary {', '.join(VARY_KEYS)}")
        if key in out:
            raise ModelError(f"--vary {key}: given twice")
        if len(set(values)) != len(values) or not all(values):
            raise ModelError(f"--vary {key}={','.join(values)}: a value is empty or given twice")
        for v in values:
            if key == "pooling":
                ENCODER_OPTIONS["pooling"].check("--vary", "pooling", v, ModelError)
            if key == "layer":
                parse_layer(f"--vary layer={v}", v)
        out[key] = tuple(values)
    if not out:
        raise ModelError("--vary: nothing to vary")
    return out


def settings_of(vary: Mapping[str, Sequence[str]]) -> list[dict[str, str]]:
    """Every combination of the varied values, in the order given.

    >>> settings_of({"pooling": ("mean", "cls"), "layer": ("-1",)})
    [{'pooling': 'mean', 'layer': '-1'}, {'pooling': 'cls', 'layer': '-1'}]
    """
    keys = [k for k in VARY_KEYS if k in vary]
    return [dict(zip(keys, combo)) for combo in itertools.product(*(vary[k] for k in keys))]


def setting_text(setting: Mapping[str, str]) -> str:
    """``{"pooling": "cls", "layer": "-4:-1"}`` → ``pooling=cls,layer=-4:-1``."""
    return ",".join(f"{k}={setting[k]}" for k in VARY_KEYS if k in setting)


def varied_models(models: Sequence[str | ModelSource], vary: Mapping[str, Sequence[str]],
                  resolve: object) -> tuple[list[str | ModelSource], list[VariedModel]]:
    """Each ``hf:`` spec in ``models`` becomes one named source per setting; the others stay.

    ``resolve`` is :func:`wefe_same.models.resolve_model` bound to the run's options (passed
    in, as the catalog imports this package).
    """
    out: list[str | ModelSource] = []
    varied: list[VariedModel] = []
    for spec in models:
        if not isinstance(spec, str):
            out.append(spec)
            continue
        name, rest = split_name(spec)
        if not rest.startswith("hf:"):
            out.append(spec)
            continue
        path, options = parse_options("hf", rest[3:])
        base = name or _base_name(path)
        for setting in settings_of(vary):
            merged = {**options, **setting}
            setting_spec = "hf:" + ",".join([path] + [f"{k}={v}" for k, v in merged.items()])
            source = resolve(setting_spec)  # type: ignore[operator]
            label = setting_text({k: (layer_text(source.settings.layer) if k == "layer" else source.settings.pooling)
                                  for k in setting})
            source.name = f"{base}[{label}]"
            source.spec = None  # a worker gets the named source itself, not a spec to resolve again
            out.append(source)
            varied.append(VariedModel(source.name, base, label))
    if not varied:
        raise ModelError("--vary needs at least one hf: model among --models (static models, sbert: and catalog "
                         "encoders pool as they were trained)")
    return out, varied
