"""The model and query arguments of the Python API, as a Python user passes them.

A list, a tuple, a generator or a NumPy array is taken where a list is; a ``Path`` where a
path is; a single string is one model (one query set), never split into letters; anything
else is a :class:`~wefe_same.validation.ParameterTypeError` (a ``TypeError``) naming the
parameter, before any work.

>>> check_models(("glove-6b-50d", Path("m.txt")), "models", "rank")
('glove-6b-50d', 'm.txt')
>>> try:
...     check_models(5, "models", "rank")
... except TypeError as err:
...     print(str(err)[:39], "…", str(err)[-15:])
The 'models' parameter of rank must be … Got 5 instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from wefe_same.errors import bad_parameter
from wefe_same.models.base import is_source_like
from wefe_same.query.sets import Query, QuerySet
from wefe_same.validation import ParameterTypeError

MODEL = "a model spec, a path or a ModelSource"
QUERIES = "a bundled query set name, a path, a Query, a QuerySet"


def _one_model(value: object) -> Any:
    """``value`` as one model (a string, a path's string, a source), or None when it is not one."""
    if isinstance(value, str):
        return str(value)  # np.str_ as str
    if isinstance(value, os.PathLike):
        path = os.fspath(value)
        return path if isinstance(path, str) else None
    return value if is_source_like(value) else None


def check_spec(value: object, param: str, func: str) -> Any:
    """One model: a spec string, a ``Path`` (as its string) or a source."""
    one = _one_model(value)
    if one is None:
        raise ParameterTypeError(bad_parameter(param, func, MODEL, value))
    return one


def check_models(value: object, param: str, func: str) -> Any:
    """None, one model (a string is one spec) or a tuple of models from any iterable of them."""
    if value is None:
        return None
    one = _one_model(value)
    if one is not None:
        return one
    expected = "a model spec, a path, a ModelSource or a list of these"
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        raise ParameterTypeError(bad_parameter(param, func, expected, value))
    items = []
    for item in value:
        checked = _one_model(item)
        if checked is None:
            raise ParameterTypeError(bad_parameter(param, func, expected, item))
        items.append(checked)
    return tuple(items)


def check_queries(value: object, param: str, func: str) -> Any:
    """One query source or a tuple of them from any iterable; a ``Path`` stays a path."""
    single = (str, Path, Query, QuerySet)
    if isinstance(value, single):
        return value
    if isinstance(value, os.PathLike):
        return Path(value)
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        raise ParameterTypeError(bad_parameter(param, func, QUERIES + " or a list of these", value))
    items = []
    for item in value:
        if isinstance(item, os.PathLike) and not isinstance(item, Path):
            item = Path(item)
        if not isinstance(item, single):
            raise ParameterTypeError(bad_parameter(param, func, QUERIES + " or a list of these", item))
        items.append(str(item) if isinstance(item, str) else item)
    return tuple(items)


def check_path(value: object, param: str, func: str) -> Path:
    """A file path: a string or an ``os.PathLike`` of one."""
    path = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if not isinstance(path, str):
        raise ParameterTypeError(bad_parameter(param, func, "a path (a string or a Path)", value))
    return Path(path)


def word_list(value: object, param: str, func: str) -> list[str]:
    """Words from any iterable of strings; one string is refused, never split into letters."""
    expected = "a list of words (one string is not a list)"
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise ParameterTypeError(bad_parameter(param, func, expected, value))
    words = list(value)
    bad = next((w for w in words if not isinstance(w, str)), None)
    if bad is not None:
        raise ParameterTypeError(bad_parameter(param, func, expected, bad))
    return [str(w) for w in words]
