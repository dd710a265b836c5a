"""A zoo of models as data: ``--models-file FILE`` (TOML or CSV) and spec globs.

A models file lists model specs, each with optional metadata::

    # zoo.toml                                  # zoo.csv
    [[models]]                                  spec,name,family,parameters,year
    spec = "hf:zoo/*"                           hf:zoo/*,,bert,4.4e6,2019
    family = "bert"                             glove:g.txt,glove,glove,,2014
    parameters = 4.4e6
    year = 2019

``spec`` is required; ``name`` (optional) names a model that is not a glob. Every other
key or column is metadata. A column whose every value is a number (TOML numbers; in a
CSV plain decimals, empty cells missing) is **numeric**: it joins the run like a column of
``--external`` (``external:parameters``), so the correlations show whether bias grows
with, say, model size (ranks ascending: the smallest value is rank 1). Other metadata
(family, training data) are recorded per model in the manifest (``metadata``).

``seed`` declares a model one of several trainings of a ``family`` with different random
seeds (``family = "w2v"``, ``seed = 3``; MultiBERTs is the public case): with
``--reliability`` the seeds of a family give its test-retest reliability. ``seed`` is an
integer, needs a ``family`` and is never a numeric column (a seed ranks nothing).

A spec whose path holds ``*`` or ``?`` is a glob: ``hf:zoo/*`` is every match in sorted
order, so a zoo always lists its models in the same order. Brackets are never a glob:
``[k=v,...]`` after a variant holds its options (``glove-6b-50d+hsr-debias[alpha=30]``), and a
``[`` in a path is that character (:class:`~wefe_same.models.specs.ModelSpec`). Relative
paths in a models file are relative to the file's folder, always (a file missing there is
missing, not looked for in the working folder); catalog, ``gensim-data:`` and hub names
are not paths.
"""

from __future__ import annotations

import csv
import glob
import io
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from wefe_same.errors import ModelError
from wefe_same.models.catalog import CATALOG
from wefe_same.models.encoders import ENCODER_SCHEMES
from wefe_same.models.readers.formats import file_format
from wefe_same.models.specs import WILDCARDS, ModelSpec, parse_spec, split_name
from wefe_same.validation import EXTERNAL_TABLE_MAX_BYTES, parse_decimal, read_regular_file

RESERVED = ("spec", "name")
#: Schemes whose location is a local folder or a hub name (a hub name is never a path).
_FOLDER_OR_NAME = tuple(ENCODER_SCHEMES)


@dataclass
class Zoo:
    """The specs of a models file, in order, and each spec's metadata."""

    specs: list[str] = field(default_factory=list)
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)  # spec → {column: value}
    numeric: list[str] = field(default_factory=list)  # numeric columns, in file order


def _beside(spec: ModelSpec, folder: Path) -> str:
    """The base of ``spec`` with every relative path in it joined to ``folder``, whether or not
    it exists there: a models file means the files beside it, never the working folder's.

    Catalog names, ``gensim-data:`` names and hub names (``hf:org/name`` that is no folder
    beside the file nor in the working folder) are names, not paths, and stay as they are.
    """

    def join(path: str) -> str:
        p = Path(path).expanduser()
        return path if p.is_absolute() or not path else str(folder / p)

    scheme, location = spec.scheme, spec.location
    if not scheme:
        return spec.base if spec.base in CATALOG else join(spec.base)
    if scheme == "npy":
        return "npy:" + ",".join(join(p) for p in location.split(","))
    if file_format(scheme) is not None:  # FORMAT:PATH, built in or a plugin's
        return f"{scheme}:{join(location)}"
    if scheme in _FOLDER_OR_NAME:
        path, comma, options = location.partition(",")
        # A path by its shape, beside the file, or one that the working folder holds (which
        # would be read from there): a path, so the file's folder decides.
        if path.startswith((".", "~", "/", "\\")) or spec.is_glob or (folder / path).exists() or Path(path).exists():
            return f"{scheme}:{join(path)}{comma}{options}"
    return spec.base


def expand_spec(spec: str, folder: Path | None = None) -> list[str]:
    """A spec (its relative paths joined to ``folder``, a models file's), a glob expanded (sorted).

    Only ``*`` and ``?`` are wildcards, in the base's path; brackets are literal there
    (``[`` is matched as itself) and a path that exists is taken as it is. The variants of
    a glob apply to every match: ``hf:zoo/*+hard-debias``.

    >>> expand_spec("glove-6b-50d+hsr-debias[alpha=30]")
    ['glove-6b-50d+hsr-debias[alpha=30]']
    >>> expand_spec("glove-6b-50d+ran-debias[flavour=wefe,epochs=10]")
    ['glove-6b-50d+ran-debias[flavour=wefe,epochs=10]']
    """
    try:
        return _expand(parse_spec(spec), spec, folder)
    except OSError as err:  # a path the system refuses to look at (a name too long, a loop of links)
        raise ModelError(f"model spec {spec[:80]!r}: {err.strerror or err}") from None


def _expand(parsed: ModelSpec, spec: str, folder: Path | None) -> list[str]:
    base = parsed.base if folder is None else _beside(parsed, folder)
    moved = parsed.with_base(base)
    if not moved.is_glob:
        return [str(moved)]
    path, comma, options = moved.location.partition(",")
    if Path(path).exists():
        return [str(moved)]
    if parsed.name:
        raise ModelError(f"model spec {spec!r}: a glob names many models; drop the {parsed.name!r}= part")
    pattern = str(Path(path).expanduser()).replace("[", "[[]")
    matches = sorted(glob.glob(pattern))
    if not matches:
        raise ModelError(f"model spec {spec!r}: the glob {path!r} matches nothing")
    scheme = moved.scheme + ":" if moved.scheme else ""
    return [str(moved.with_base(f"{scheme}{m}{comma}{options}")) for m in matches]


def _is_glob(item: object) -> bool:
    if not isinstance(item, str) or not any(w in item for w in WILDCARDS):
        return False
    try:
        return parse_spec(item).is_glob
    except ModelError:  # a malformed spec: resolving it names the problem (or skips it)
        return False


def expand_globs(models: Sequence[Any] | Any) -> Any:
    """``models`` with every glob spec string expanded in place (sorted); other items as they are."""
    if models is None or (isinstance(models, str) and not _is_glob(models)):
        return models
    items = [models] if isinstance(models, str) else models
    if not isinstance(items, Sequence):
        return models
    out: list[Any] = []
    for item in items:
        out.extend(expand_spec(item) if _is_glob(item) else [item])
    return out


def _read_text(path: Path) -> str:
    """The models file as text: a regular file under the external tables' cap (a FIFO or
    /dev/zero would hang the run), UTF-8 (a BOM is dropped)."""
    raw = read_regular_file(path, what="models file", error=ModelError, max_bytes=EXTERNAL_TABLE_MAX_BYTES)
    return raw.decode("utf-8-sig")


def _rows_toml(path: Path) -> list[dict[str, Any]]:
    try:
        data = tomllib.loads(_read_text(path))
    except tomllib.TOMLDecodeError as err:
        raise ModelError(f"{path}: not valid TOML ({err})") from None
    models = data.get("models")
    extra = sorted(set(data) - {"models"})
    if extra:
        raise ModelError(f"{path}: unknown top-level key {extra[0]!r}; list models as [[models]] tables")
    if not isinstance(models, list) or not models or not all(isinstance(m, dict) for m in models):
        raise ModelError(f"{path}: no models; list them as [[models]] tables with a 'spec' key")
    return [dict(m) for m in models]


def _rows_csv(path: Path) -> list[dict[str, Any]]:
    try:
        rows = [r for r in csv.reader(io.StringIO(_read_text(path), newline="")) if any(c.strip() for c in r)]
    except csv.Error as err:
        raise ModelError(f"{path}: malformed CSV: {err}") from None
    if not rows:
        raise ModelError(f"{path}: empty models file; it needs a header with a 'spec' column")
    header = [c.strip() for c in rows[0]]
    if len(set(header)) != len(header) or "" in header:
        raise ModelError(f"{path}: the header has an empty or repeated column name: {', '.join(header)}")
    out = []
    for line, cells in enumerate(rows[1:], start=2):
        if len(cells) != len(header):
            raise ModelError(f"{path}: line {line} has {len(cells)} cells, the header has {len(header)}")
        out.append({h: c.strip() for h, c in zip(header, cells) if c.strip() != ""})
    return out


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return math.isfinite(float(value))
    return isinstance(value, str) and parse_decimal(value) is not None


def load_models_file(path: str | Path) -> Zoo:
    """Read a models file (``.toml``, else CSV); every problem is a one-line :class:`ModelError`."""
    path = Path(path)
    try:
        rows = _rows_toml(path) if path.suffix.lower() == ".toml" else _rows_csv(path)
    except OSError as err:
        raise ModelError(f"{path}: cannot read models file: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise ModelError(f"{path}: models file is not UTF-8 text ({err.reason} at byte {err.start})") from None
    columns: list[str] = list(dict.fromkeys(k for r in rows for k in r if k not in RESERVED))
    for i, row in enumerate(rows, start=1):
        spec = row.get("spec")
        if not isinstance(spec, str) or not spec.strip():
            raise ModelError(f"{path}: model {i} has no 'spec'")
        for key, value in row.items():
            if key not in RESERVED and not isinstance(value, (str, int, float, bool)):
                raise ModelError(f"{path}: model {i} ({spec}): {key!r} must be a number or a string")
    numeric = [c for c in columns if c != "seed" and all(_is_number(r[c]) for r in rows if c in r)]
    for row in rows:
        _check_seed(path, row)
    zoo = Zoo(numeric=numeric)
    for row in rows:
        spec = row["spec"].strip()
        name = row.get("name")
        if name is not None and not isinstance(name, str):
            raise ModelError(f"{path}: model {spec!r}: 'name' must be a string")
        if name:
            spec = f"{name.strip()}={split_name(spec)[1]}"
        meta = {c: (float(row[c]) if isinstance(row[c], (int, float)) else parse_decimal(row[c]))
                if c in numeric else row[c] for c in columns if c in row}
        try:
            expanded_specs = expand_spec(spec, path.parent)
        except ModelError as err:  # a glob of the file: name the file too
            raise ModelError(f"{path}: {err}") from None
        for expanded in expanded_specs:
            if expanded in zoo.metadata:
                raise ModelError(f"{path}: model spec {expanded!r} is listed twice")
            zoo.specs.append(expanded)
            zoo.metadata[expanded] = meta
    return zoo


def _check_seed(path: Path, row: Mapping[str, Any]) -> None:
    """A ``seed`` is an integer of a model with a ``family`` (the error names the file and model)."""
    if "seed" not in row:
        return
    seed, spec = row["seed"], row["spec"]
    if isinstance(seed, str):
        seed = int(seed) if seed.strip().lstrip("-").isdigit() else seed
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ModelError(f"{path}: model {spec!r}: 'seed' must be an integer (the seed of a training), "
                         f"not {row['seed']!r}")
    family = row.get("family")
    if not isinstance(family, str) or not family.strip():
        raise ModelError(f"{path}: model {spec!r} has a 'seed' but no 'family': name the family whose "
                         "trainings differ by seed (family = \"w2v\")")


def seed_families(metadata: Mapping[str, Mapping[str, Any]]) -> dict[str, list[str]]:
    """family → the names of its models that declare a ``seed``, by seed (from the models
    file's metadata, model name → its keys); every family, whatever its number of seeds.

    >>> seed_families({"a": {"family": "w2v", "seed": "2"}, "b": {"family": "w2v", "seed": 1}, "c": {}})
    {'w2v': ['b', 'a']}
    """
    out: dict[str, list[tuple[int, str]]] = {}
    for name, meta in metadata.items():
        if "seed" in meta and isinstance(meta.get("family"), str):
            out.setdefault(meta["family"].strip(), []).append((int(meta["seed"]), name))
    return {family: [name for _, name in sorted(members)] for family, members in out.items()}


def metadata_table(zoo: Zoo, names: Mapping[str, str]) -> pd.DataFrame | None:
    """The numeric metadata as an external table: a ``model`` column (the run's names of
    ``names``: spec → model name) and one column per numeric key; None without any."""
    if not zoo.numeric:
        return None
    rows = [{"model": names[spec], **{c: zoo.metadata[spec].get(c, math.nan) for c in zoo.numeric}}
            for spec in zoo.specs if spec in names]
    return pd.DataFrame(rows, columns=["model", *zoo.numeric]) if rows else None
