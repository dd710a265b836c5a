"""``.npy`` matrices (memory-mapped) with a vocabulary file: ``npy:EMB.npy,VOCAB``."""

from __future__ import annotations

import warnings
from functools import partial
from pathlib import Path

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.readers.decoding import _Decoder
from wefe_same.models.readers.files import (
    _errors_name,
    _lines,
    check_model_file,
    file_description,
    file_identity,
    open_stream,
)
from wefe_same.models.sources import ArraySource, LazySource
from wefe_same.models.specs import LoadOptions, UnicodeErrors

NPY_OBJECTS = ("{path}: the array holds Python objects (dtype {dtype}); loading it would need pickle, "
               "which runs code from the file: refused")
NPY_NOT_NUMBERS = "{path}: the array has dtype {dtype}, not numbers"


def _npy_header(path: Path) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype from a ``.npy`` header, reading nothing else."""
    fmt = np.lib.format
    # numpy evaluates the header as a Python literal: a damaged one can warn (invalid escapes).
    with _errors_name(path), open(path, "rb") as fh, warnings.catch_warnings():
        warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
        try:
            version = fmt.read_magic(fh)
            read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
            shape, _, dtype = read(fh)
        except Exception as err:  # numpy's header parser raises ValueError, SyntaxError, TokenError...
            raise ModelError(f"{path}: not a .npy file ({type(err).__name__}: {err})") from None
    return shape, dtype


def _read_vocabulary(path: Path, decode: _Decoder) -> list[str]:
    """One word per line (extra columns, e.g. counts, ignored) or a one-column parquet file."""
    if path.suffix == ".parquet":
        import pandas as pd

        try:
            frame = pd.read_parquet(path)
        except Exception as err:  # pyarrow raises its own exception types: name the file
            raise ModelError(f"{path}: cannot read the parquet vocabulary ({type(err).__name__}: {err})") from None
        return frame.iloc[:, 0].astype(str).tolist()
    with open_stream(path) as fh:
        return [decode(line.split(b" ")[0], n, lambda: f"{path}:{n}") for n, line in _lines(path, fh)]


def load_npy(name: str, matrix_path: Path, vocab_path: Path, *,
             unicode_errors: UnicodeErrors = "strict") -> ArraySource:
    """A ``.npy`` matrix (memory-mapped) and a vocabulary file, one word per line
    (extra columns, e.g. counts, are ignored) or a parquet file with one column.

    An array of Python objects is refused: loading it would unpickle, which runs code.
    """
    for p in (matrix_path, vocab_path):
        check_model_file(name, p)
    _, dtype = _npy_header(matrix_path)
    if dtype.hasobject:
        raise ModelError(NPY_OBJECTS.format(path=matrix_path, dtype=dtype))
    if dtype.kind not in "fiu":
        raise ModelError(NPY_NOT_NUMBERS.format(path=matrix_path, dtype=dtype))
    with _errors_name(matrix_path), warnings.catch_warnings():
        warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
        try:
            matrix = np.load(matrix_path, mmap_mode="r", allow_pickle=False)
        except ValueError as err:
            raise ModelError(f"{matrix_path}: cannot load the array ({err})") from None
    decode = _Decoder(unicode_errors)
    with decode.reporting(vocab_path):
        words = _read_vocabulary(vocab_path, decode)
    if matrix.ndim != 2 or len(words) != matrix.shape[0]:
        raise ModelError(
            f"model {name!r}: {vocab_path} has {len(words)} words but {matrix_path} "
            f"has shape {matrix.shape}"
        )
    source = ArraySource(name, words, matrix, file_description("npy", matrix_path, vocab_path),
                         identity=file_identity("npy", matrix_path, vocab_path, unicode_errors=unicode_errors),
                         decode_warnings=decode.warnings)
    return source


def lazy_npy(name: str, matrix_path: Path, vocab_path: Path, options: LoadOptions) -> LazySource:
    """``npy:EMB.npy,VOCAB``: the paths checked now (``os.stat``), the files read on first use
    (an array of Python objects is refused then, before any of its data is loaded)."""
    for p in (matrix_path, vocab_path):
        check_model_file(name, p)
    unicode_errors = options.unicode_errors
    # partial, not a lambda: the source pickles (worker processes).
    return LazySource(name, partial(load_npy, name, matrix_path, vocab_path, unicode_errors=unicode_errors),
                      {"kind": "npy", "path": str(matrix_path)},
                      identity=partial(file_identity, "npy", matrix_path, vocab_path, unicode_errors=unicode_errors))
