"""Whether a process that left something behind (a temporary folder, a cache temp file)
is gone: the one check behind every cleanup of a killed run's leftovers."""

from __future__ import annotations

import os
from pathlib import Path


def boot_id() -> str | None:
    """This boot's id (Linux), None when unknown."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def process_start(pid: int) -> int | None:
    """The start time of a process in clock ticks since boot (Linux), None when unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its last ")".
    return int(stat.rsplit(")", 1)[1].split()[19])


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists and belongs to someone else
        return True
    return True


def process_gone(pid: int, start: int | None) -> bool:
    """True when process ``pid`` of this boot, started at ``start`` (ticks since boot; None
    when unknown), no longer runs: it is dead, or its pid now belongs to a later process.

    >>> process_gone(os.getpid(), process_start(os.getpid()))
    False
    """
    if not pid_alive(pid):
        return True
    return start is not None and process_start(pid) not in (None, start)
