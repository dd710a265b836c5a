"""One place that checks arguments, with one message shape, before any work starts.

Every check raises `InvalidParameterError` (a `WefeSameError` and a
`ValueError`) whose message names the function and the argument:
"The 'seed' parameter of rank must be an integer >= 0. Got -1 instead."

>>> check_int(3, "bootstrap", "rank", minimum=0)
3
>>> check_int(-1, "seed", "rank", minimum=0)
Traceback (most recent call last):
...
wefe_same.validation.InvalidParameterError: The 'seed' parameter of rank must be an integer >= 0. Got -1 instead.
>>> as_list("WEAT", "metrics", "rank")
['WEAT']
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from wefe_same.errors import WefeSameError, bad_parameter


class InvalidParameterError(WefeSameError, ValueError):
    """An argument of a public function has a value it cannot take."""


def _fail(param: str, func: str, expected: str, got: object) -> InvalidParameterError:
    return InvalidParameterError(bad_parameter(param, func, expected, got))


def is_int(value: object) -> bool:
    """An integer, but not a bool (``True`` is not a seed)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_int(value: object, param: str, func: str, *, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """``value`` as an int within [minimum, maximum]."""
    expected = "an integer" + (f" >= {minimum}" if minimum is not None else "") + (
        f" <= {maximum}" if maximum is not None else "")
    if not is_int(value) or (minimum is not None and value < minimum) or (  # type: ignore[operator]
            maximum is not None and value > maximum):  # type: ignore[operator]
        raise _fail(param, func, expected, value)
    return int(value)  # type: ignore[call-overload]  # is_int checked it is an integral number


def check_number(value: object, param: str, func: str, *, low: float | None = None, high: float | None = None,
                 low_open: bool = False, high_open: bool = False) -> float:
    """``value`` as a finite float in the interval given (closed unless ``*_open``).

    >>> check_number(0.5, "train_fraction", "RNSB", low=0, high=1, low_open=True)
    0.5
    """
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(float(value))
    if ok:
        v = float(value)  # type: ignore[arg-type]
        ok = (low is None or (v > low if low_open else v >= low)) and (
            high is None or (v < high if high_open else v <= high))
    if not ok:
        raise _fail(param, func, describe_interval(low, high, low_open, high_open), value)
    return float(value)  # type: ignore[arg-type]


def describe_interval(low: float | None, high: float | None, low_open: bool = False, high_open: bool = False) -> str:
    """Words for an interval: "a number in (0, 1]", "a number >= 0".

    >>> describe_interval(0, 1, True, False)
    'a number in (0, 1]'
    """
    if low is not None and high is not None:
        return f"a number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f"a number {'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"a number {'<' if high_open else '<='} {high:g}"
    return "a finite number"


def check_choice(value: object, param: str, func: str, choices: Collection[Any]) -> Any:
    """``value`` if it is one of ``choices``.

    >>> check_choice("avg", "ties", "rank", ["min", "average"])
    Traceback (most recent call last):
    ...
    wefe_same.validation.InvalidParameterError: The 'ties' parameter of rank must be one of 'min', 'average'. Got 'avg' instead.
    """
    if isinstance(value, (list, dict, set)) or value not in choices:
        raise _fail(param, func, "one of " + ", ".join(repr(c) for c in choices), value)
    return value


def check_bool(value: object, param: str, func: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(param, func, "True or False", value)
    return value


def as_list(value: object, param: str, func: str, *, item: type | tuple[type, ...] = str) -> list[Any]:
    """A list from one item or an iterable of items; a single string is one item.

    ``rank(metrics="WEAT")`` means ``["WEAT"]``, never the letters of "WEAT".
    """
    if isinstance(value, item if isinstance(item, tuple) else (item,)):
        return [value]
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise _fail(param, func, "a name or a list of names", value)
    items = list(value)
    for v in items:
        if not isinstance(v, item):
            raise _fail(param, func, "a name or a list of names", v)
    return items


#: A plain decimal number as people write it in a table: ASCII digits, one optional sign,
#: an optional fraction and exponent. No "1_000", no non-ASCII digits, no "nan"/"inf",
#: no hex, which Python's float() all accepts.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def parse_decimal(text: str) -> float | None:
    """The value of ``text`` (surrounding spaces allowed) if it is a plain, finite decimal
    number, else None.

    >>> parse_decimal(" -1.5e3 "), parse_decimal("1_000"), parse_decimal("١٢"), parse_decimal("inf")
    (-1500.0, None, None, None)
    """
    text = text.strip()
    if not _DECIMAL.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None  # "1e999" overflows


# -- files read whole ----------------------------------------------------------------------

#: Caps of the files read whole into memory, far above any real file of the kind (the
#: bundled query files are under 20 kB; an external table has one row per model). A
#: larger file is refused rather than read: ``/dev/zero`` or a 50 GB file given by
#: mistake would otherwise fill the memory.
QUERY_FILE_MAX_BYTES = 16 << 20
EXTERNAL_TABLE_MAX_BYTES = 64 << 20
BENCHMARK_FILE_MAX_BYTES = 256 << 20

NOT_REGULAR = "{path}: {what} is {kind}, not a regular file; give a file"
TOO_LARGE = "{path}: {what} is {size}; {what}s are read whole and may hold at most {cap}"


def _kind(mode: int) -> str:
    import stat

    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"


def _size(n: int) -> str:
    return f"{n / (1 << 20):.0f} MiB" if n >= 1 << 20 else f"{n} bytes"


def read_regular_file(path: str | Path, *, what: str, error: type[WefeSameError], max_bytes: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``max_bytes``; ``error`` (one line
    naming the file) for anything else: a directory, a FIFO (reading it would wait for a
    writer forever), a device such as ``/dev/zero`` (endless), a file over the cap.

    The file is opened without blocking and checked on the open descriptor, so it cannot
    be swapped for a FIFO between the check and the read.

    >>> read_regular_file("/dev/zero", what="query file", error=WefeSameError, max_bytes=10)
    Traceback (most recent call last):
    ...
    wefe_same.errors.WefeSameError: /dev/zero: query file is a character device, not a regular file; give a file
    """
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except IsADirectoryError:
        raise error(NOT_REGULAR.format(path=path, what=what, kind="a directory")) from None
    except OSError as err:
        raise error(f"{path}: cannot read {what}: {err.strerror or err}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise error(NOT_REGULAR.format(path=path, what=what, kind=_kind(info.st_mode)))
    with os.fdopen(fd, "rb") as fh:
        if info.st_size > max_bytes:
            raise error(TOO_LARGE.format(path=path, what=what, size=_size(info.st_size), cap=_size(max_bytes)))
        try:
            data = fh.read(max_bytes + 1)
        except OSError as err:
            raise error(f"{path}: cannot read {what}: {err.strerror or err}") from None
    if len(data) > max_bytes:  # grew while being read
        raise error(TOO_LARGE.format(path=path, what=what, size=f"over {_size(max_bytes)}", cap=_size(max_bytes)))
    return data


def check_regular_file(path: str | Path, *, what: str, error: type[WefeSameError],
                       max_bytes: int | None = None) -> None:
    """`read_regular_file`'s checks from ``os.stat`` alone, for a file read later
    line by line (a missing file is left to the reader's own message)."""
    import os
    import stat

    try:
        info = os.stat(path)
    except OSError:
        return
    if not stat.S_ISREG(info.st_mode):
        raise error(NOT_REGULAR.format(path=path, what=what, kind=_kind(info.st_mode)))
    if max_bytes is not None and info.st_size > max_bytes:
        raise error(TOO_LARGE.format(path=path, what=what, size=_size(info.st_size), cap=_size(max_bytes)))


# -- a Dask scheduler address --------------------------------------------------------------

NOT_AN_ADDRESS = ("The 'scheduler' parameter of {func} must be a Dask scheduler address such as "
                  "tcp://host:8786. Got {address!r} instead ({why}).")
#: Schemes of a networked scheduler address, with a host and a port.
_NETWORK_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]")


def check_scheduler_address(address: str, func: str = "rank") -> str:
    """``address`` as Dask takes it (``tcp://`` added to ``host:port``), or an
    `InvalidParameterError` for one that does not parse; nothing is contacted.

    >>> check_scheduler_address("10.0.0.5:8786"), check_scheduler_address("tls://[::1]:8786")
    ('tcp://10.0.0.5:8786', 'tls://[::1]:8786')
    """
    from urllib.parse import urlsplit

    full = address if "://" in address else f"tcp://{address}"
    try:
        parts = urlsplit(full)
        port = parts.port
    except ValueError as err:
        raise InvalidParameterError(NOT_AN_ADDRESS.format(func=func, address=address, why=err)) from None
    if parts.scheme not in _NETWORK_SCHEMES:
        why = f"unknown scheme {parts.scheme!r}; use one of {', '.join(_NETWORK_SCHEMES)}"
        raise InvalidParameterError(NOT_AN_ADDRESS.format(func=func, address=address, why=why))
    host = parts.netloc.rsplit(":", 1)[0] if port is not None else parts.netloc
    if not _HOST.fullmatch(host) or parts.path or parts.query or parts.fragment or parts.username:
        raise InvalidParameterError(NOT_AN_ADDRESS.format(func=func, address=address, why="expected SCHEME://HOST:PORT"))
    return full
