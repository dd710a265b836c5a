"""Ctrl-C (SIGINT) and SIGTERM held back for a short block of work, then delivered.

Two uses: steps that must not stop half-way (creating and swapping an output folder), and
library calls that would *lose* a Ctrl-C. numpy's ``str_`` constructor (reached when a
pickle holds ``numpy.str_`` scalars, as gensim 3 ``.kv`` files do) tries ``str()`` first
and clears any error it raises, a KeyboardInterrupt included: the signal is consumed and
the run goes on as if nothing was pressed (numpy 2.4, ``unicode_arrtype_new``).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block ends: delivered then, to the handlers that
    were in place, not lost. (Python-level deferral rather than ``pthread_sigmask``: a
    mask on the main thread does not stop the signal reaching BLAS or other threads,
    whose delivery still interrupts the main thread.)

    >>> import os
    >>> terminal = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C raises
    >>> try:
    ...     with signals_deferred():
    ...         os.kill(os.getpid(), signal.SIGINT)
    ...         print("the block ends first")
    ... except KeyboardInterrupt:
    ...     print("then Ctrl-C arrives")
    the block ends first
    then Ctrl-C arrives
    >>> _ = signal.signal(signal.SIGINT, terminal)
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers run in the main thread only; this thread's work is not interrupted
        return
    received: list[int] = []
    wanted = [signal.SIGINT] + ([signal.SIGTERM] if hasattr(signal, "SIGTERM") else [])
    previous = {s: signal.signal(s, lambda signum, frame: received.append(signum)) for s in wanted}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for signum in dict.fromkeys(received):
            signal.raise_signal(signum)
