"""One exception family. Every message names the file, the set and the word it is about.

The CLI turns any `WefeSameError` into one line on stderr and exit code 2.
Message templates are module constants so that tests can import and match them.

One class per kind of failure. The kinds that mean "a value the user gave is wrong"
(a query, a metric name or option, a quality benchmark, an external table; and
`InvalidParameterError` for any other argument) are also
`ValueError`, as in scikit-learn, so ``except ValueError`` catches them. The
kinds about the world outside the arguments (a model file that cannot be read, an
output folder or cache that cannot be used, an executor that cannot start) are not.
"""

from __future__ import annotations

from collections.abc import Iterable


class WefeSameError(Exception):
    """Base class of every error this library raises on bad input."""


class QueryError(WefeSameError, ValueError):
    """A word set, query, template or query file is malformed."""


class ModelError(WefeSameError):
    """A model specification cannot be resolved or read.

    Not a `ValueError`: most of these are files that cannot be read, and model
    loaders catch ``ValueError`` from third-party parsers to name the file.
    """


class MetricError(WefeSameError, ValueError):
    """An unknown metric, a bad metric option, or a query that does not fit a metric."""


class QualityError(WefeSameError, ValueError):
    """An unknown quality benchmark, a malformed benchmark file, or a bad quality option."""


class ExternalError(WefeSameError, ValueError):
    """An external table is malformed: its message names the file, the column and the row."""


class OutputError(WefeSameError):
    """The output location cannot be written without touching files the tool did not write."""


class ExportError(WefeSameError, ValueError):
    """The words file of ``wefe-same export`` cannot be used (its destination: `OutputError`)."""


class CacheError(WefeSameError):
    """The cache directory cannot be used."""


class ExecutorError(WefeSameError):
    """The executor asked for cannot be used (no dask, an unreachable scheduler)."""


class WefeSameWarning(UserWarning):
    """Something the user should know that does not stop the run (a figure left out, a word
    in two target sets, a leniently decoded word). The CLI prints it as one line."""


UNKNOWN_NAME = "unknown {kind} {name!r}; valid {kind}s are: {valid}"
BAD_PARAMETER = "The {param!r} parameter of {func} must be {expected}. Got {got!r} instead."


#: Items a message lists before it says how many more there are.
SHOWN_ITEMS = 10
#: Characters one listed item may take in a message (a 1 MB "name" is cut).
SHOWN_ITEM_CHARS = 80


def short_list(items: Iterable[object], *, shown: int = SHOWN_ITEMS, quote: bool = False) -> str:
    """``items`` joined by ", " for a message that stays short whatever their number: the
    first ``shown`` (each cut to `SHOWN_ITEM_CHARS` characters), then "… and N more".

    >>> short_list(["a", "b", "c"])
    'a, b, c'
    >>> short_list(range(200_000), shown=3)
    '0, 1, 2, … and 199997 more (200000 in all)'
    >>> len(short_list(["x" * 10_000], quote=True))
    82
    """
    items = list(items)

    def show(item: object) -> str:
        text = str(item)
        if len(text) > SHOWN_ITEM_CHARS:
            text = text[:SHOWN_ITEM_CHARS - 1] + "…"
        return repr(text) if quote else text

    head = ", ".join(show(i) for i in items[:shown])
    rest = len(items) - shown
    return head if rest <= 0 else f"{head}, … and {rest} more ({len(items)} in all)"


def printable(text: str) -> str:
    """``text`` with the bytes of a non-UTF-8 file name (which Python keeps as lone
    surrogates, PEP 383) shown as ``\\xNN``: a name that every table, message and file
    can hold, and that still tells two such names apart.

    >>> printable("caf\\udce9")
    'caf\\\\xe9'
    >>> printable("café")
    'café'
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text


def os_error_message(err: OSError) -> str:
    """One line for an operating-system failure during a run (a full disk, a file size
    limit, a name too long): the file, the reason, and that earlier results are kept.

    >>> import errno
    >>> os_error_message(OSError(errno.ENOSPC, "No space left on device", "results/x.csv"))
    'results/x.csv: No space left on device (ENOSPC); earlier results are untouched'
    """
    import errno

    code = errno.errorcode.get(err.errno or 0)
    where = printable(str(err.filename)) + ": " if err.filename is not None else ""
    if err.filename2 is not None:
        where = f"{where[:-2]} -> {printable(str(err.filename2))}: "
    reason = err.strerror or str(err) or type(err).__name__
    hint = {"EFBIG": " (a file size limit: see ulimit -f)"}.get(code or "", "")
    return f"{where}{reason}{f' ({code})' if code else ''}{hint}; earlier results are untouched"


def unknown_name(kind: str, name: str, valid: Iterable[str]) -> str:
    """Format the message for a name that is not in a registry (long lists are cut:
    `short_list`).

    >>> unknown_name("metric", "WAET", ["WEAT", "RND"])
    "unknown metric 'WAET'; valid metrics are: RND, WEAT"
    """
    name = name if len(str(name)) <= SHOWN_ITEM_CHARS else str(name)[:SHOWN_ITEM_CHARS - 1] + "…"
    return UNKNOWN_NAME.format(kind=kind, name=name, valid=short_list(sorted(valid), shown=40))


class _Shown(str):
    """A string whose repr is itself: an already-formatted value in a message."""

    def __repr__(self) -> str:
        return str(self)


def bad_parameter(param: str, func: str, expected: str, got: object) -> str:
    """Format the one message shape used for every invalid parameter.

    >>> bad_parameter("ddof", "weat_effect_size", "0 or 1", 2)
    "The 'ddof' parameter of weat_effect_size must be 0 or 1. Got 2 instead."
    """
    shown = repr(got)
    if len(shown) > 2 * SHOWN_ITEM_CHARS:  # a 6 MB argument is named, not printed
        shown = f"{shown[:SHOWN_ITEM_CHARS]}… ({len(shown)} characters)"
    return BAD_PARAMETER.format(param=param, func=func, expected=expected, got=_Shown(shown))
