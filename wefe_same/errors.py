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

import contextlib
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple


class WefeSameError(Exception):
    """Base class of every error this library raises on bad input."""


class QueryError(WefeSameError, ValueError):
    """A word set, query, template or query file is malformed."""


class ModelError(WefeSameError):
    """A model specification cannot be resolved or read.

    Not a `ValueError`: most of these are files that cannot be read, and model
    loaders catch ``ValueError`` from third-party parsers to name the file.
    """


class NoLanguageModelHead(ModelError):
    """A model has no masked or causal language-model head: its likelihood scores are NaN."""

    def __init__(self, folder: str, architectures: str) -> None:
        super().__init__(f"{folder}: no masked or causal language-model head (architectures: {architectures})")
        self.architectures = architectures


class MetricError(WefeSameError, ValueError):
    """An unknown metric, a bad metric option, or a query that does not fit a metric."""


class QualityError(WefeSameError, ValueError):
    """An unknown quality benchmark, a malformed benchmark file, or a bad quality option."""


class LikelihoodError(WefeSameError, ValueError):
    """An unknown likelihood benchmark or scoring, or a malformed CrowS-Pairs / StereoSet file."""


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
    in two target sets, a leniently decoded word). The CLI prints it as one line.

    A warning that may come many times for one model (once per batch of texts) is made by
    `model_warning` with a ``kind``: a run says it once per model and kind.
    """


def model_warning(message: str, kind: str) -> WefeSameWarning:
    """A `WefeSameWarning` that a run reports once per model and ``kind`` (the
    first one; later ones of the same kind only differ in their counts)."""
    warning = WefeSameWarning(message)
    warning.kind = kind  # type: ignore[attr-defined]
    return warning


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


# ----------------------------------------------------------------------------- one voice for warnings
class Caught(NamedTuple):
    """A warning caught while a job ran, as plain picklable values (it travels back from a
    worker process or a Dask worker with the job's result)."""

    category: str  # the class name
    ours: bool  # a WefeSameWarning
    kind: str | None  # model_warning's kind
    text: str
    origin: str  # the top-level package of the code that warned


#: A warning as a run reports it: (model or None, kind, message).
Said = tuple[str | None, str, str]

#: Floating-point warnings of numpy, whose cause in a run is the model's values.
_NUMPY_FP = re.compile(r"(overflow|underflow|invalid value|divide by zero) encountered in (\w+)")
#: Third-party categories about their own API, not the user's data: never shown.
_DEVELOPER_CATEGORIES = ("DeprecationWarning", "PendingDeprecationWarning", "FutureWarning")


def catch(message: Warning | str, category: type[Warning], filename: str) -> Caught:
    """The picklable record of one warning (``warnings.showwarning``'s arguments)."""
    ours = isinstance(message, WefeSameWarning) or issubclass(category, WefeSameWarning)
    return Caught(category.__name__, ours, getattr(message, "kind", None), str(message), _origin(filename))


def _origin(filename: str) -> str:
    """The package a file belongs to: the folder after site-packages, else the file's stem.

    >>> _origin("/venv/lib/python3.11/site-packages/matplotlib/_layoutgrid.py")
    'matplotlib'
    >>> _origin("/src/wefe_same/scoring/model.py")
    'wefe_same'
    """
    parts = re.split(r"[\\/]", filename or "")
    for marker in ("site-packages", "dist-packages"):
        if marker in parts[:-1]:
            return parts[len(parts) - 1 - parts[::-1].index(marker) + 1].removesuffix(".py")
    if "wefe_same" in parts[:-1]:
        return "wefe_same"
    return parts[-1].removesuffix(".py") if parts[-1] else "python"


def translate(caught: Caught, model: str | None = None) -> Said | None:
    """One warning in the tool's voice: (model, kind, one-line message); None when it is
    silenced (a third-party library's deprecation notice, which is about its code, not
    about the user's models or options).

    >>> translate(Caught("RuntimeWarning", False, None, "overflow encountered in multiply", "numpy"), "m+x[a=1]")[2]
    "model 'm+x[a=1]': a numeric step gave values beyond float64 (numpy: overflow encountered in multiply); \
its vectors, or an option of its variant, make numbers too large: check the values or the option"
    >>> translate(Caught("FutureWarning", False, None, "x is deprecated", "transformers"), "m") is None
    True
    """
    text = " ".join(caught.text.split())  # one line
    who = f"model {model!r}: " if model is not None else ""
    if caught.ours:
        return model, caught.kind or text, text
    if caught.category in _DEVELOPER_CATEGORIES and caught.origin != "wefe_same":
        return None
    fp = _NUMPY_FP.search(text)
    if fp is not None and caught.category == "RuntimeWarning":
        what = {"overflow": "values beyond float64", "underflow": "values below float64's smallest",
                "invalid value": "undefined values (NaN)", "divide by zero": "a division by zero"}[fp.group(1)]
        return model, f"numpy {fp.group(1)}", (
            f"{who}a numeric step gave {what} (numpy: {fp.group(0)}); its vectors, or an option of its "
            "variant, make numbers too large: check the values or the option")
    source = caught.origin if caught.origin != "wefe_same" else "a library"
    return model, f"{caught.category}: {text}", f"{who}{source} warned: {text}"


def _voiced(message: str) -> WefeSameWarning:
    """A warning already in the tool's voice and in a run's log: shown as it is."""
    warning = WefeSameWarning(message)
    warning.voiced = True  # type: ignore[attr-defined]
    return warning


class WarningLog:
    """The warnings of one run, in the order they came, each once per (model, kind).

    One log per run, passed to the stages (never a module global). Each new warning is
    also warned (`WefeSameWarning`) in the calling process, where the user's
    filters and the CLI's one-line display apply; `messages` are the run's words
    for `RankResult.warnings`, the manifest and the report.
    """

    def __init__(self) -> None:
        self.messages: list[str] = []
        self._keys: set[tuple[str | None, str]] = set()

    def _new(self, said: Said) -> bool:
        model, kind, message = said
        if (model, kind) in self._keys or message in self.messages:
            return False
        self._keys.add((model, kind))
        self.messages.append(message)
        return True

    def add(self, caught: Iterable[Caught], model: str | None = None) -> None:
        """Warnings caught elsewhere (a job, a worker process) for ``model``: the new ones
        are logged and warned here."""
        for record in caught:
            said = translate(record, model)
            if said is not None and self._new(said):
                warnings.warn(_voiced(said[2]), stacklevel=2)

    def of_jobs(self, models: Sequence[str]) -> Callable[[int, list[Caught]], None]:
        """The executors' ``said`` callback: job ``i``'s warnings logged for ``models[i]``."""
        return lambda i, caught: self.add(caught, models[i])

    @contextlib.contextmanager
    def capture(self, model: str | None = None) -> Iterator[WarningLog]:
        """Inside the block every warning shown is translated (`translate`), logged
        once and passed on as a `WefeSameWarning` to what showed warnings before."""
        with warnings.catch_warnings():
            before = warnings.showwarning

            def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                     file: Any = None, line: str | None = None) -> None:
                if getattr(message, "voiced", False):
                    before(message, category, filename, lineno, file, line)
                    return
                said = translate(catch(message, category, filename), model)
                if said is not None and self._new(said):
                    before(_voiced(said[2]), WefeSameWarning, filename, lineno, file, line)

            warnings.showwarning = show
            yield self


def caught_in(block: list[warnings.WarningMessage]) -> list[Caught]:
    """The records of ``catch_warnings(record=True)``'s list, one per distinct warning."""
    return list(dict.fromkeys(catch(w.message, w.category, w.filename) for w in block))
