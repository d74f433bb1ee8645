"""Helper processes that die with the process that owns them, whatever they are doing.

On Linux the kernel can send a process a signal the moment its parent dies (the parent-death
signal, ``prctl(PR_SET_PDEATHSIG)``). This module sets it to SIGKILL, so that a worker of a
killed ``pmim ingest`` or ``pmim simulate`` is gone at once -- while it is still importing,
starting up or replaying -- without waiting for a watch thread to be scheduled.

The rules-check workers of ``pmim ingest`` are forked by a fork server (see
:mod:`pmim_analytics.store.rules_judge`), so two links make the chain: the fork server dies
with the ingest (it sets the signal as soon as it imports this package, see
:func:`serve_for_owner`), and each worker dies with the fork server (set in the child right
after the fork). The signal follows the *thread* that started the child, so a fork server is
started this way only from the main thread (:func:`start_fork_server`), which lives as long as
the process. Elsewhere (not Linux, another thread) nothing is set and the workers' own watch
of their owner (:func:`pmim_analytics.replay.rules_check.exit_with_parent`) is what ends them.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any

#: Set, in its environment only, for a fork server that is to die with the process ``pid`` that
#: started it (read and removed by :func:`serve_for_owner`, so its workers never see it).
OWNER_ENV = "PMIM_LIFELINE_OWNER"
_PR_SET_PDEATHSIG = 1
_libc: Any = None
_forked = False  # in a fork server's child: its own children are not the server's workers


def die_with_parent(parent: int) -> bool:
    """Have the kernel SIGKILL this process as soon as its parent (the thread that started it)
    ends; exit at once when ``parent`` is not the parent any more (it died before this call).
    ``False`` where the platform has no parent-death signal (nothing is set then)."""
    global _libc
    if not sys.platform.startswith("linux"):
        return False
    try:
        if _libc is None:
            import ctypes

            _libc = ctypes.CDLL(None, use_errno=True)
        if _libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if os.getppid() != parent:
        os._exit(1)
    return True


def serve_for_owner() -> None:
    """In a fork server started by :func:`start_fork_server` (run when it imports this package,
    before anything heavy): die with the owner, and have every child it forks die with it."""
    global _forked
    owner = os.environ.pop(OWNER_ENV, "")
    if not owner.isdigit() or "multiprocessing.forkserver" not in " ".join(getattr(sys, "orig_argv", [])):
        return
    if not die_with_parent(int(owner)):
        return
    server = os.getpid()

    def child() -> None:
        global _forked
        if not _forked:  # a worker, forked by the server (not a process a worker forks)
            _forked = True
            die_with_parent(server)

    _forked = False
    os.register_at_fork(after_in_child=child)


def start_fork_server() -> None:
    """Start the multiprocessing fork server now, from this thread, so that it dies with this
    process (:func:`serve_for_owner`); only from the main thread, and only if none runs yet
    (a running one is reused as it is). Call after the context's preload is set."""
    if threading.current_thread() is not threading.main_thread():
        return
    from multiprocessing import forkserver

    os.environ[OWNER_ENV] = str(os.getpid())
    try:
        forkserver.ensure_running()
    finally:
        os.environ.pop(OWNER_ENV, None)
