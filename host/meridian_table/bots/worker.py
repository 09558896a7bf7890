"""A policy that thinks in a worker process, so the table, the LEDs and the page never
stall behind a search (the search holds the interpreter's lock for its whole budget).

:class:`WorkerPolicy` has the :class:`~meridian_table.games.contract.Policy` surface. The
worker (a ``spawn``-ed process, started on the first request) builds the same policy
from the game's spec and answers one request at a time. A cancelled request is marked
in shared memory; the worker's search sees it within a few milliseconds, and an answer
that comes late is dropped by its request number. ``close()`` ends the process: the
table calls it when the seat changes hands and when it quits.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import threading
from ctypes import c_longlong
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from types import TracebackType

import psutil

from meridian_table.games.contract import Engine, PolicyCancelled

LOGGER = logging.getLogger(__name__)

POLL_S = 0.005
START_TIMEOUT_S = 30.0


#: The worker's scheduling priority (POSIX nice value; "below normal" on Windows).
NICE = 10


def yield_to_the_table() -> None:
    """Lower this process's priority, so that the table's threads, the link and the
    board never wait behind a search when the cores are busy: the switch-to-LED path
    keeps its latency while a bot thinks (bench bots)."""
    try:
        me = psutil.Process()
        if hasattr(psutil, "BELOW_NORMAL_PRIORITY_CLASS"):  # Windows
            me.nice(psutil.BELOW_NORMAL_PRIORITY_CLASS)
        else:
            me.nice(max(me.nice(), NICE))
    except (psutil.Error, OSError) as exc:  # a sandbox may refuse: think at normal priority
        LOGGER.info("the bot's worker keeps its priority: %s", exc)


def start_quiet(process: BaseProcess) -> None:
    """Start ``process`` with Ctrl-C held back until it ignores it: Ctrl-C reaches the
    whole process group, and a worker still importing as it starts printed a
    KeyboardInterrupt traceback. The child ignores SIGINT, then unblocks it
    (``quiet_child``); until then it inherits Ctrl-C held back:

    - started from another thread, through the blocked signal mask, which spawn's exec
      keeps;
    - started from the main thread, SIGINT is also set to be ignored while the child
      starts: an ignored signal stays ignored across exec, and the child's Python then
      installs no Ctrl-C handler. The parent's own handler is put back while the signal
      is still blocked, so a Ctrl-C meant for the table in that instant is delivered to
      it just after, not lost.

    The first spawn in a process also launches multiprocessing's resource tracker, and
    that launch *unblocks* SIGINT in the calling thread when it is done (CPython's
    ``ResourceTracker.ensure_running``), before our child is spawned: two CI runs showed
    the mask gone, once from each kind of thread. So the tracker is launched first,
    before the signal is held back."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no process-group Ctrl-C here
        process.start()
        return
    if getattr(process, "_start_method", None) in ("spawn", "forkserver"):
        resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        handler = (signal.getsignal(signal.SIGINT)
                   if threading.current_thread() is threading.main_thread() else None)
        if handler is not None:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            process.start()
        finally:
            if handler is not None:
                signal.signal(signal.SIGINT, handler)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def quiet_child() -> None:
    """In a child started by ``start_quiet``: ignore Ctrl-C (its parent closes it), then
    let the signal through (a pending one is dropped)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _serve(conn: Connection, cancelled: c_longlong, game: str, description: str,
           seed: int | None) -> None:
    """The worker's loop: build the policy, then answer ``(id, engine, budget)``."""
    from meridian_table.games import registry

    # Ctrl-C in the terminal reaches the whole process group: the table closes this
    # worker itself (close()), so the worker ignores it rather than print a traceback.
    quiet_child()
    yield_to_the_table()
    policy = registry.spec(game).policy(description, seed)
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        rid, engine, budget_s = request
        cancel = threading.Event()
        done = threading.Event()

        def watch(rid: int = rid, cancel: threading.Event = cancel,
                  done: threading.Event = done) -> None:
            while not done.wait(POLL_S):
                if cancelled.value >= rid:
                    cancel.set()
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            reply: tuple[int, str, str] = (rid, "action", policy.choose(engine, budget_s, cancel))
        except PolicyCancelled:
            reply = (rid, "cancelled", "")
        except Exception as exc:  # reported to the table, which shows it in words
            reply = (rid, "error", f"{type(exc).__name__}: {exc}")
        finally:
            done.set()
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return


class WorkerPolicy:
    """``game``'s policy ``description`` (``bot:4``), thinking in a process of its own."""

    def __init__(self, game: str, description: str, seed: int | None = None) -> None:
        self._game = game
        self._description = description
        self._seed = seed
        self._ctx = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        # The highest cancelled request id, in shared memory without a lock: only this
        # side writes it (under _cancel_lock). A Value's lock is a named semaphore that a
        # spawned child opens by name as it starts, and a table closed or dropped while
        # its worker was still starting had unlinked it: a FileNotFoundError traceback.
        self._cancelled: c_longlong = self._ctx.RawValue(c_longlong, 0)
        self._cancel_lock = threading.Lock()
        self._conn: Connection | None = None
        self._process: BaseProcess | None = None
        self._rid = 0
        self._closed = False

    @property
    def name(self) -> str:
        return self._description

    @property
    def alive(self) -> bool:
        """True while the worker process runs."""
        return self._process is not None and self._process.is_alive()

    def _start(self) -> Connection:
        if self._closed:
            raise PolicyCancelled(f"the {self._description} player was closed")
        if self._conn is None or not self.alive:
            parent, child = self._ctx.Pipe()
            process = self._ctx.Process(
                target=_serve, args=(child, self._cancelled, self._game, self._description,
                                     self._seed),
                name=f"meridian-{self._description}", daemon=True)
            start_quiet(process)
            child.close()
            self._conn, self._process = parent, process
        return self._conn

    def warm(self) -> None:
        """Start the worker process now (it imports the game and builds its bot while
        the table goes on), so that the first move or hint is not slowed by it."""
        with self._lock:
            self._start()

    def choose(self, game: Engine, budget_s: float = 1.0,
               cancel: threading.Event | None = None) -> str:
        with self._lock:
            conn = self._start()
            self._rid += 1
            rid = self._rid
            conn.send((rid, game, budget_s))
        while True:
            if cancel is not None and cancel.is_set():
                self._cancel(rid)
                raise PolicyCancelled(f"the {self._description} player was cancelled")
            with self._lock:
                if self._closed:
                    raise PolicyCancelled(f"the {self._description} player was closed")
                if not conn.poll(POLL_S):
                    if not self.alive:
                        raise RuntimeError(f"the {self._description} player's process stopped")
                    continue
                try:
                    got, kind, value = conn.recv()
                except (EOFError, OSError) as exc:
                    raise RuntimeError(
                        f"the {self._description} player's process stopped") from exc
            if got != rid:
                continue  # the late answer to a cancelled request
            if kind == "action":
                return str(value)
            if kind == "cancelled":
                raise PolicyCancelled(f"the {self._description} player was cancelled")
            raise RuntimeError(value)

    def _cancel(self, rid: int) -> None:
        with self._cancel_lock:
            self._cancelled.value = max(self._cancelled.value, rid)

    def close(self, timeout: float = 2.0) -> None:
        """Stop thinking and end the worker process."""
        self._cancel(self._rid)
        # A caller stuck in a send holds the lock: the process is ended all the same (its
        # end of the pipe closing frees that caller), so closing never hangs the table.
        locked = self._lock.acquire(timeout=timeout)
        try:
            self._closed = True
            conn, process = self._conn, self._process
            self._conn = self._process = None
        finally:
            if locked:
                self._lock.release()
        if conn is not None and not locked and process is not None:
            process.terminate()
        if conn is not None:
            if locked:
                try:
                    conn.send(None)
                except (BrokenPipeError, OSError):
                    pass
            conn.close()
        if process is not None:
            process.join(timeout)
            if process.is_alive():
                process.terminate()
                process.join(timeout)
            LOGGER.info("closed the %s worker (exit code %s)", self._description,
                        process.exitcode)

    def __enter__(self) -> WorkerPolicy:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"WorkerPolicy({self._game!r}, {self._description!r}, seed={self._seed!r})"


__all__ = ["NICE", "WorkerPolicy", "quiet_child", "start_quiet", "yield_to_the_table"]
