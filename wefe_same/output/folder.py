"""The output folder contract: the tool writes its own folders and touches nothing else.

An output folder (a results folder, or the folder of ``wefe-same quality/audit --out``)
is written into a hidden sibling ``.NAME.partial-XXXX`` and swapped into place at the
end, so it is always the earlier folder or the new one, never half of each. It is
recognised later by its ``manifest.json``: a ``wefe_same`` key (the version) and a
``files`` inventory ``{relative path: sha256}`` of everything the tool wrote there.

:func:`check_output` refuses, before any work starts, every location whose replacement
could lose something the tool did not write: an existing file, a symbolic link, the
current folder or one of its parents, a non-empty folder without such a manifest, a
results folder holding a file not in its inventory or one edited since. A location
that cannot be written fails the same way, before any model is read.

Runs killed with SIGKILL leave ``.NAME.partial-XXXX`` / ``.NAME.old-XXXX`` folders; the
next run removes them only when they are provably the tool's own: an owner marker
(:data:`OWNER`) naming this host and a process that is gone (dead, or its pid reused by
a process that started later).
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime as _dt
import json
import os
import secrets
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wefe_same.errors import OutputError
from wefe_same.interrupts import signals_deferred
from wefe_same.processes import boot_id, process_gone, process_start
from wefe_same.versions import package_version, sha256_file

#: The manifest every output folder ends with.
MANIFEST = "manifest.json"
#: The owner marker: who is writing (or wrote) the folder. Listed in the inventory.
OWNER = ".wefe-same-owner.json"
TOOL = "wefe-same"

# One-line messages: the path, what is wrong, what to do instead.
IS_FILE = "output {path} is an existing file, not a folder; choose a new folder name"
IS_LINK = "output {path} is a symbolic link; give the real folder or choose a new folder name"
IS_CWD = ("output {path} is the current folder or one of its parents; "
          "choose a new folder (e.g. {path}{sep}results)")
NOT_OURS = ("output {path} is a non-empty folder that wefe-same did not write (no manifest.json "
            "with a file inventory); choose a new folder or remove it yourself")
OTHER_KIND = "output {path} holds wefe-same {found} output, not {kind}; choose a new folder"
FOREIGN = ("output {path} holds {entry!r}, which wefe-same did not write; "
           "move it out, choose a new folder or remove the folder yourself")
EDITED = ("output {path}: {entry!r} was changed after wefe-same wrote it; "
          "move it out, choose a new folder or remove the folder yourself")
UNREADABLE = "output {path} cannot be read ({error}); choose another folder"
PARENT_FILE = "output {path} cannot be created: {parent} is a file; choose another location"
UNWRITABLE = "output {path} cannot be written: {parent} is not writable ({error}); choose another location"
CHANGED = "{error}; this run's output is kept in {kept}"
NAME_TOO_LONG = "output {path}: the name {name!r} is {size} bytes; at most {limit} fit{why}; choose a shorter name"
#: What the longest temporary sibling adds to the output folder's name: ``.NAME.partial-XXXXXXXX``.
SIBLING_EXTRA = len(".") + len(".partial-") + 8


def _fail(template: str, path: Path, **kw: Any) -> OutputError:
    return OutputError(template.format(path=path, **kw))


# -- what is in a folder ---------------------------------------------------------------


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The manifest of a wefe-same output folder, or None when there is none."""
    path = folder / MANIFEST
    if path.is_symlink() or not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and "wefe_same" in manifest else None


def inventory(folder: Path) -> dict[str, str]:
    """``{relative posix path: sha256}`` of every file below ``folder`` except the manifest."""
    files = {}
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            path = Path(root) / name
            rel = path.relative_to(folder).as_posix()
            if rel != MANIFEST:
                files[rel] = sha256_file(path)
    return files


def _first_stranger(folder: Path, files: dict[str, str]) -> tuple[str, str] | None:
    """("foreign" | "edited", relative path) of the first entry the inventory does not vouch for."""
    ours_dirs = {p.as_posix() for rel in files for p in Path(rel).parents if p != Path(".")}
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        base = Path(root).relative_to(folder)
        for name in dirs:
            rel = (base / name).as_posix()
            if (Path(root) / name).is_symlink() or rel not in ours_dirs:
                return "foreign", rel
        for name in sorted(names):
            path, rel = Path(root) / name, (base / name).as_posix()
            if rel == MANIFEST and base == Path("."):
                continue
            if path.is_symlink() or not path.is_file() or rel not in files:
                return "foreign", rel
            if sha256_file(path) != files[rel]:
                return "edited", rel
    return None


def _check_folder(out: Path, kind: str) -> None:
    """Refuse a non-empty folder unless it is a wefe-same ``kind`` folder of files it wrote."""
    try:
        if not any(out.iterdir()):
            return
        manifest = read_manifest(out)
        if manifest is None or not isinstance(manifest.get("files"), dict):
            raise _fail(NOT_OURS, out)
        found = manifest.get("kind", "results")
        if found != kind:
            raise _fail(OTHER_KIND, out, found=found, kind=kind)
        stranger = _first_stranger(out, manifest["files"])
    except OSError as err:
        raise _fail(UNREADABLE, out, error=err.strerror or err) from None
    if stranger is not None:
        problem, entry = stranger
        raise _fail(FOREIGN if problem == "foreign" else EDITED, out, entry=entry)


def _check_writable(out: Path) -> None:
    """The nearest existing ancestor is a folder in which a file can be created."""
    parent = out.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise _fail(PARENT_FILE, out, parent=parent)
    try:
        fd, probe = tempfile.mkstemp(prefix=".wefe-same-probe-", dir=parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise _fail(UNWRITABLE, out, parent=parent, error=err.strerror or err) from None


def _check_name_length(given: Path) -> None:
    """Refuse a name the file system cannot hold with its temporary sibling (it would fail
    with ENAMETOOLONG after the work); any too long component of the path fails here too."""
    parent = given.absolute().parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    try:
        name_max = os.pathconf(parent, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        name_max = 255
    for i, part in enumerate(given.parts):
        size = len(os.fsencode(part))
        last = i == len(given.parts) - 1
        limit = name_max - (SIBLING_EXTRA if last else 0)
        if size > limit:
            shown = part if len(part) <= 40 else part[:39] + "…"
            why = f" (the file system allows {name_max}; the temporary folder beside it adds {SIBLING_EXTRA})" \
                if last else " in the file system"
            raise OutputError(NAME_TOO_LONG.format(path=Path(*given.parts[:i], shown), name=shown, size=size,
                                                   limit=limit, why=why))


def check_output(path: str | os.PathLike[str], *, kind: str = "results") -> Path:
    """Check an output location before any work; return it resolved.

    Parameters
    ----------
    path : path
        The folder to write. Absent, empty, or an earlier wefe-same ``kind`` folder
        holding only files it wrote (unchanged): fine.
    kind : str, default "results"
        What the folder holds ("results", "quality", "audit"); a folder of another
        kind is refused rather than replaced.

    Returns
    -------
    Path
        The absolute path, symbolic links of its parents resolved.

    Raises
    ------
    OutputError
        One line naming the path, what is wrong and what to do instead; nothing has
        been written, moved or deleted.
    """
    given = Path(os.fspath(path)).expanduser()
    _check_name_length(given)
    if given.is_symlink():
        raise _fail(IS_LINK, given)
    out = given.resolve()
    cwd = Path.cwd().resolve()
    if out == cwd or out in cwd.parents:
        raise _fail(IS_CWD, Path(os.fspath(path)), sep=os.sep)
    if out.exists():
        if not out.is_dir():
            raise _fail(IS_FILE, out)
        _check_folder(out, kind)
    _check_writable(out)
    return out


# -- who owns a temporary folder ---------------------------------------------------------


def owner_record() -> dict[str, Any]:
    """What the owner marker of this process says."""
    return {"tool": TOOL, "pid": os.getpid(), "host": socket.gethostname(), "boot_id": boot_id(),
            "start": process_start(os.getpid()),
            "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")}


def owner_is_gone(folder: Path) -> bool:
    """True only when ``folder`` provably belongs to a wefe-same process of this host that
    no longer runs; any doubt (no marker, another host, a live process) keeps it."""
    marker = folder / OWNER
    try:
        if folder.is_symlink() or marker.is_symlink() or not marker.is_file():
            return False
        info = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(info, dict) or info.get("tool") != TOOL or info.get("host") != socket.gethostname():
        return False
    pid = info.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    boot = boot_id()
    if boot is not None and info.get("boot_id") not in (None, boot):
        return True  # written before this machine last booted
    start = info.get("start")
    return process_gone(pid, start if isinstance(start, int) and not isinstance(start, bool) else None)


def _prefixes(out: Path) -> tuple[str, str]:
    return f".{out.name}.partial-", f".{out.name}.old-"


def clean_stale(out: str | os.PathLike[str]) -> list[Path]:
    """Remove the ``.NAME.partial-*`` / ``.NAME.old-*`` siblings of ``out`` left by killed
    runs, only those :func:`owner_is_gone` vouches for; return what was removed."""
    out = Path(out)
    removed: list[Path] = []
    try:
        siblings = sorted(out.parent.iterdir())
    except OSError:
        return removed
    for path in siblings:
        if path.name.startswith(_prefixes(out)) and path.is_dir() and owner_is_gone(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


# -- writing ----------------------------------------------------------------------------


def _new_sibling(out: Path, prefix: str) -> Path:
    """A new empty folder beside ``out``, with the user's umask (mkdtemp would give 0700)."""
    for _ in range(100):
        path = out.parent / f"{prefix}{secrets.token_hex(4)}"
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    raise OutputError(f"output {out}: cannot create a temporary folder beside it")  # pragma: no cover


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one atomic step (Linux ``renameat2(RENAME_EXCHANGE)``); False when
    this system or file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


def _swap_into_place(tmp: Path, out: Path) -> Path | None:
    """Put ``tmp`` at ``out``; return where the earlier folder now is (to be removed)."""
    with signals_deferred():
        if not os.path.lexists(out):
            os.rename(tmp, out)
            return None
        if _exchange(tmp, out):
            return tmp  # the earlier folder, now under the temporary name
        old = out.with_name(_prefixes(out)[1] + tmp.name.rsplit("-", 1)[-1])
        os.rename(out, old)
        try:
            os.rename(tmp, out)
        except BaseException:
            os.rename(old, out)
            raise
        return old


def write_manifest(folder: Path, manifest: dict[str, Any], *, kind: str = "results") -> dict[str, Any]:
    """Write ``manifest.json`` last: the given entries, ``kind`` and the ``files`` inventory."""
    full = dict(manifest)
    if full.get("wefe_same") is None:
        full["wefe_same"] = package_version("wefe_same") or "unknown"  # "unknown": a source tree
    full["kind"] = kind
    full["files"] = inventory(folder)
    (folder / MANIFEST).write_text(json.dumps(full, indent=2, sort_keys=True, default=str) + "\n",
                                   encoding="utf-8")
    return full


@contextlib.contextmanager
def staging(out: str | os.PathLike[str], *, kind: str = "results") -> Iterator[Path]:
    """Write an output folder atomically: yield a temporary sibling, then swap it into place.

    The caller writes into the yielded folder and ends with :func:`write_manifest`.
    On any exception (KeyboardInterrupt included) the temporary folder is removed and
    the earlier folder is untouched. Leftovers of killed runs are removed first
    (:func:`clean_stale`).
    """
    target = check_output(out, kind=kind)
    target.parent.mkdir(parents=True, exist_ok=True)
    clean_stale(target)
    tmp: Path | None = None
    try:
        # A signal between creating the folder and owning it would leave it behind: the
        # folder is made with signals deferred, and a deferred one arrives inside the try.
        with signals_deferred():
            tmp = _new_sibling(target, _prefixes(target)[0])
            (tmp / OWNER).write_text(json.dumps(owner_record(), indent=2, sort_keys=True) + "\n",
                                     encoding="utf-8")
        yield tmp
        try:  # the folder may have changed during the run: keep this run's output apart
            check_output(target, kind=kind)
        except OutputError as err:
            kept = target.with_name(f"{target.name}.new-{tmp.name.rsplit('-', 1)[-1]}")
            os.rename(tmp, kept)
            raise OutputError(CHANGED.format(error=err, kept=kept)) from None
        old = _swap_into_place(tmp, target)
    except BaseException:
        if tmp is not None:
            with signals_deferred():  # a second Ctrl-C must not leave half a folder
                shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_folder(out: str | os.PathLike[str], write: Callable[[Path], None], manifest: dict[str, Any], *,
                 kind: str = "results") -> Path:
    """Write an output folder under the contract and return its resolved path.

    Parameters
    ----------
    out : path
        Checked by :func:`check_output` (call that before the work too).
    write : callable
        ``write(folder)`` writes the files into the temporary folder. It may add
        entries to ``manifest`` (e.g. warnings): the manifest is written after it.
    manifest : dict
        Written as ``manifest.json`` with ``wefe_same`` (the version, unless given),
        ``kind`` and ``files`` ({relative path: sha256}).
    kind : str
        "results", "quality", "audit", …

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as base:
    ...     out = write_folder(pathlib.Path(base) / "q", lambda d: (d / "quality.csv").write_text("a\\n1\\n"), {},
    ...                        kind="quality")
    ...     sorted(read_manifest(out)["files"])
    ['.wefe-same-owner.json', 'quality.csv']
    """
    with staging(out, kind=kind) as tmp:
        write(tmp)
        write_manifest(tmp, manifest, kind=kind)
    return Path(os.fspath(out)).expanduser().resolve()
