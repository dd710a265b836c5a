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
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from wefe_same.errors import WefeSameError, bad_parameter


class InvalidParameterError(WefeSameError, ValueError):
    """An argument of a public function has a value it cannot take."""


class ParameterTypeError(InvalidParameterError, TypeError):
    """An argument of a public function is of a type it cannot take (``rank(5)``): a
    :class:`TypeError` naming the parameter, and an :class:`InvalidParameterError` as before."""


def _fail(param: str, func: str, expected: str, got: object, *, wrong_type: bool = False) -> InvalidParameterError:
    return (ParameterTypeError if wrong_type else InvalidParameterError)(bad_parameter(param, func, expected, got))


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
        raise _fail(param, func, expected, value, wrong_type=not is_int(value))
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
        raise _fail(param, func, describe_interval(low, high, low_open, high_open), value,
                    wrong_type=not isinstance(value, numbers.Real) or isinstance(value, bool))
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
        types = {type(c) for c in choices}
        raise _fail(param, func, "one of " + ", ".join(repr(c) for c in choices), value,
                    wrong_type=not isinstance(value, tuple(types)))
    return value


def check_bool(value: object, param: str, func: str) -> bool:
    """``value`` as a bool: True, False or a NumPy bool (``np.True_``); 1 and "yes" are refused."""
    if not (isinstance(value, bool) or _numpy_bool(value)):
        raise _fail(param, func, "True or False", value, wrong_type=True)
    return bool(value)


def _numpy_bool(value: object) -> bool:
    """``np.True_``/``np.False_``, recognised by type without importing NumPy (the CLI's
    first imports stay light so that an early Ctrl-C is handled)."""
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")


def as_list(value: object, param: str, func: str, *, item: type | tuple[type, ...] = str) -> list[Any]:
    """A list from one item or an iterable of items; a single string is one item.

    ``rank(metrics="WEAT")`` means ``["WEAT"]``, never the letters of "WEAT".
    """
    if isinstance(value, item if isinstance(item, tuple) else (item,)):
        return [value]
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise _fail(param, func, "a name or a list of names", value, wrong_type=True)
    items = list(value)  # a list, a tuple, a generator, a NumPy array of names
    for v in items:
        if not isinstance(v, item):
            raise _fail(param, func, "a name or a list of names", v, wrong_type=True)
    return [str(v) if isinstance(v, str) else v for v in items]  # np.str_ as str


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


# -- declared options of model variants and encoders -----------------------------------------

#: An integer as people write it in a spec: ASCII digits and one optional sign.
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
#: Characters of a refused value that a message shows.
SHOWN_VALUE_CHARS = 80
BAD_OPTION_VALUE = "{owner} option {key}={value} must be {expected}{why}"
DEGENERATE_OPTION = "{owner} option {key}={value} cannot be used: {reason}"
UNKNOWN_OPTION = "{owner} has no option {key!r}; its options: {valid}"


@dataclass(frozen=True)
class OptionSpec:
    """What one option of a model variant or an encoder takes, declared once beside it.

    A value (a string from a spec such as ``+hsr-debias[alpha=30]``, or a Python value) is
    parsed by ``kind``, then must be finite and within [``low``, ``high``] (open ends when
    ``*_open``); ``high`` on a size keeps a run within minutes. ``degenerate`` returns the
    reason a value in range still cannot give a meaningful model (or None), and ``why``
    says where the bounds come from; both go into the one-line refusal.

    >>> OptionSpec("int", low=1, high=10_000).check("+ran-debias", "epochs", "300")
    300
    >>> OptionSpec("number", low=0, low_open=True).check("+hsr-debias", "alpha", "nan")
    Traceback (most recent call last):
    ...
    wefe_same.validation.InvalidParameterError: +hsr-debias option alpha='nan' must be a number > 0
    """

    kind: Literal["int", "number", "numbers", "choice", "text"]
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    #: ``numbers``: how many, written ``A/B/C``.
    count: int = 1
    #: ``choice``: the values taken.
    choices: tuple[str, ...] = ()
    why: str = ""
    degenerate: Callable[[Any], str | None] | None = None

    def expected(self) -> str:
        """What the option takes, in words: "an integer in [1, 10000]", "a number > 0"."""
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "text":
            return f"text of at most {self.high:g} characters"
        if self.kind == "int":  # integer bounds in full: 4294967295, not 4.29497e+09
            low, high = (None if b is None else int(b) for b in (self.low, self.high))
            if low is not None and high is not None:
                return f"an integer in [{low}, {high}]"
            return "an integer" + (f" >= {low}" if low is not None else "") + (f" <= {high}" if high is not None else "")
        interval = describe_interval(self.low, self.high, self.low_open, self.high_open)
        if self.kind == "numbers":
            slots = "/".join("ABCDEFGH"[: self.count])
            return f"{self.count} numbers {slots}, each {interval.removeprefix('a number ')}"
        return interval

    def _in_range(self, v: float) -> bool:
        return math.isfinite(v) and (self.low is None or (v > self.low if self.low_open else v >= self.low)) and (
            self.high is None or (v < self.high if self.high_open else v <= self.high))

    def _scalar(self, value: object) -> float | int | None:
        if isinstance(value, str):
            text = value.strip()
            if self.kind == "int":
                return int(text) if _INTEGER.fullmatch(text) and len(text) < 40 else None
            return parse_decimal(text)
        if isinstance(value, bool):
            return None
        if self.kind == "int":
            if is_int(value):
                return int(value)  # type: ignore[call-overload]
            # 5.0 from a table or numpy: an integer all the same
            if isinstance(value, numbers.Real) and math.isfinite(float(value)) and float(value).is_integer():
                return int(float(value))
            return None
        if isinstance(value, numbers.Real):
            return float(value)
        return None

    def parse(self, value: object) -> Any:
        """The value, typed, or :data:`None` when it is not of the kind or out of range."""
        if self.kind == "choice":
            return value if isinstance(value, str) and value in self.choices else None
        if self.kind == "text":
            ok = isinstance(value, str) and len(value) <= (self.high or math.inf)
            return value if ok else None
        if self.kind == "numbers":
            items: list[object]
            if isinstance(value, str):
                items = list(value.split("/"))
            elif isinstance(value, Iterable) and not isinstance(value, (bytes, Mapping)):
                items = list(value)  # a list, a tuple, a numpy array
            else:
                return None
            parts = [self._scalar(x) for x in items]
            if len(parts) != self.count or any(x is None or not self._in_range(x) for x in parts):
                return None
            return tuple(float(x) for x in parts)  # type: ignore[arg-type]
        number = self._scalar(value)
        return number if number is not None and self._in_range(number) else None

    def check(self, owner: str, key: str, value: object, error: type[WefeSameError] | None = None) -> Any:
        """``value`` parsed and checked, or ``error`` (default :class:`InvalidParameterError`)
        naming ``owner``, the option, the value and what it must be."""
        parsed = self.parse(value)
        reason = None if parsed is None or self.degenerate is None else self.degenerate(parsed)
        if reason:
            raise (error or InvalidParameterError)(DEGENERATE_OPTION.format(
                owner=owner, key=key, value=shown_value(value), reason=reason))
        if parsed is None:
            raise (error or InvalidParameterError)(BAD_OPTION_VALUE.format(
                owner=owner, key=key, value=shown_value(value), expected=self.expected(),
                why=f" ({self.why})" if self.why else ""))
        return parsed

    def check_parameter(self, value: object, param: str, func: str) -> Any:
        """As :meth:`check`, for a parameter of a public function: the message has the shape of
        every other parameter's ("The 'contexts_per_word' parameter of rank must be …")."""
        parsed = self.parse(value)
        reason = None if parsed is None or self.degenerate is None else self.degenerate(parsed)
        if parsed is None or reason:
            why = reason or self.why
            raise _fail(param, func, self.expected() + (f" ({why})" if why else ""), value)
        return parsed


def shown_value(value: object) -> str:
    """``repr(value)``, cut to :data:`SHOWN_VALUE_CHARS` characters with its length said.

    >>> shown_value("x" * 1000)[-20:]
    "…' (1000 characters)"
    """
    text = repr(value)
    if len(text) <= SHOWN_VALUE_CHARS:
        return text
    size = f" ({len(value)} characters)" if isinstance(value, str) else ""
    return text[:SHOWN_VALUE_CHARS - 1] + "…'" * isinstance(value, str) + size


def check_declared(owner: str, given: Mapping[str, object], declared: Mapping[str, OptionSpec],
                   error: type[WefeSameError] | None = None) -> dict[str, Any]:
    """Every option of ``given`` checked by its declared spec; an unknown key is refused
    with the list of the owner's options.

    >>> check_declared("+hsr-debias", {"alpha": "30"}, {"alpha": OptionSpec("number", low=0, low_open=True)})
    {'alpha': 30.0}
    """
    out = {}
    for key, value in given.items():
        if key not in declared:
            raise (error or InvalidParameterError)(UNKNOWN_OPTION.format(
                owner=owner, key=key if len(key) <= SHOWN_VALUE_CHARS else key[:SHOWN_VALUE_CHARS] + "…",
                valid=", ".join(declared)))
        out[key] = declared[key].check(owner, key, value, error)
    return out


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
