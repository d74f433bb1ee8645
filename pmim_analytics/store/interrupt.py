"""Ctrl-C that stops an ingest at once, even inside a long DuckDB statement.

Python runs its SIGINT handler only between bytecodes of the main thread, and DuckDB does
not return to Python while a statement runs, so a plain ``KeyboardInterrupt`` waits for
the statement (seconds, or a whole batch's COMMIT). :class:`SigintGuard` blocks SIGINT
in every thread and waits for it in a watcher thread, which interrupts the running DuckDB
statement (``con.interrupt()``) and raises ``KeyboardInterrupt`` in the main thread. The
statement fails, the transaction is never committed (closing the connection discards
it), and the ingest reports what the earlier batches stored.

Enter the guard before the first DuckDB connection of the process: SIGINT must be
blocked in DuckDB's worker threads too, and threads inherit the mask they start with.
Outside the main thread (a dashboard's script thread) the guard does nothing.
"""

from __future__ import annotations

import _thread
import signal
import threading
from types import TracebackType
from typing import Any

WAKE_SIGNAL = signal.SIGUSR1


class SigintGuard:
    """See the module docstring; ``interrupted`` tells whether Ctrl-C came."""

    def __init__(self) -> None:
        self.con: Any = None  # the DuckDB connection whose statement a Ctrl-C interrupts
        self.interrupted = False
        self._active = False
        self._done = False
        self._thread: threading.Thread | None = None
        self._old_mask: set[int | signal.Signals] | None = None
        self._old_wake: Any = None

    def __enter__(self) -> SigintGuard:
        if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
            return self
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            return self  # someone else handles Ctrl-C here (a server, a test harness)
        self._old_wake = signal.signal(WAKE_SIGNAL, lambda signum, frame: None)
        # a thread started before the guard (a library's pool) may still take the SIGINT:
        # then Python's own handler runs in the main thread; let it say so too
        signal.signal(signal.SIGINT, self._python_handler)
        self._old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        self._active = True
        self._thread = threading.Thread(target=self._watch, name="pmim-sigint", daemon=True)
        self._thread.start()
        return self

    def _python_handler(self, signum: int, frame: object) -> None:
        self.interrupted = True
        raise KeyboardInterrupt

    def _watch(self) -> None:
        while True:
            signal.sigwait({signal.SIGINT})
            if self._done:
                return
            self.interrupted = True
            con = self.con
            if con is not None:
                try:
                    con.interrupt()
                except Exception:  # noqa: BLE001, S110 -- a closed connection has nothing to interrupt
                    pass
            _thread.interrupt_main()
            # a real signal to the main thread wakes a blocking sleep or wait (EINTR), after
            # which Python raises the KeyboardInterrupt interrupt_main left pending
            signal.pthread_kill(threading.main_thread().ident or 0, WAKE_SIGNAL)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if not self._active:
            return
        self._done = True
        if self._thread is not None and self._thread.is_alive() and self._thread.ident is not None:
            signal.pthread_kill(self._thread.ident, signal.SIGINT)
            self._thread.join(timeout=2)
        assert self._old_mask is not None
        signal.pthread_sigmask(signal.SIG_SETMASK, self._old_mask)
        signal.signal(WAKE_SIGNAL, self._old_wake)
        signal.signal(signal.SIGINT, signal.default_int_handler)
