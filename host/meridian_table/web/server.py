"""Run the table page with uvicorn on a background thread.

``serve(session)`` binds the socket in the caller's thread (so a busy port fails at
once, with a clear message), starts uvicorn on a daemon thread, waits until it
accepts connections and returns a ``WebServer`` whose ``url`` is the address to
print. ``meridian-table play`` keeps its own main loop (the table and the link) and
calls ``server.close()`` on the way out.
"""

from __future__ import annotations

import errno
import logging
import socket
import sys
import threading
from collections.abc import Iterable
from types import TracebackType
from urllib.parse import quote

import uvicorn

from meridian_table.web.app import (
    MAX_MESSAGE_BYTES,
    TableSurface,
    create_app,
    is_loopback,
    new_token,
)

LOGGER = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
START_TIMEOUT_S = 10.0


class WebServerError(OSError):
    """The page could not be served (port busy, address unknown, server did not start)."""


def reserve(host: str, port: int) -> socket.socket:
    """Bind and listen on ``host:port`` now, for a :class:`WebServer` started later
    (``sock=``): a command that must not log a game it cannot serve checks the port
    first. Raises ``WebServerError`` naming the --host or --port that is wrong."""
    return _bind(host, port)


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio then sets TCP_NODELAY on every accepted connection
    # itself, on systems where it is not inherited from the listening socket.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    if sys.platform == "win32":
        # Windows' SO_REUSEADDR would let a second server take this port as well.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
    else:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise WebServerError(_bind_problem(host, port, exc)) from exc
    if family in (socket.AF_INET, socket.AF_INET6):
        # Accepted connections inherit this on Linux: without it, a small message (a
        # command's result) that follows a large one (a state) waits for the delayed
        # ACK, 40 ms, which a player would feel.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.listen(128)
    sock.setblocking(False)
    return sock


#: What to give --host instead of an address this machine does not have.
HOST_FIX = (
    "use --host 127.0.0.1 (this computer only), --host 0.0.0.0 (every network of this "
    "computer), or one of this computer's own addresses (`ip addr` lists them)"
)


def _bind_problem(host: str, port: int, exc: OSError) -> str:
    """Why the page cannot be served on ``host:port``, naming the part that is wrong.

    The address and the port fail differently: an address that is not an IP address or
    a name that resolves (``socket.gaierror``), or one this machine does not have
    (EADDRNOTAVAIL), is the ``--host``'s fault; a port in use (EADDRINUSE) or one that
    needs privileges (EACCES) is the ``--port``'s.
    """
    reason = exc.strerror or str(exc)
    if isinstance(exc, socket.gaierror):
        return (f"cannot serve the table page: --host {host!r} is not an IP address or a "
                f"name this computer can resolve ({reason}); {HOST_FIX}")
    if exc.errno == errno.EADDRNOTAVAIL:
        return (f"cannot serve the table page: --host {host} is not an address of this "
                f"computer ({reason}); {HOST_FIX}")
    if exc.errno == errno.EADDRINUSE:
        return (f"cannot serve the table page on {host}:{port}: the port is in use ({reason}); "
                "choose another --port (--port 0 picks a free one), or stop the program "
                "that holds it")
    if exc.errno == errno.EACCES:
        return (f"cannot serve the table page on {host}:{port}: this user may not open "
                f"port {port} ({reason}); choose a --port of 1024 or above, or --port 0")
    return (f"cannot serve the table page on {host}:{port} ({reason}); check --host "
            "and --port")


def _public_address(host: str) -> str:
    """The address to print: a wildcard bind is reached through this machine's LAN address."""
    if host not in ("0.0.0.0", "::", ""):
        return host
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        # A UDP connect sends nothing; it only asks the kernel which local address routes out.
        probe.connect(("10.255.255.255", 1))
        address = str(probe.getsockname()[0])
    except OSError:
        address = socket.gethostname()
    finally:
        probe.close()
    return address


def page_url(host: str, port: int, token: str | None) -> str:
    """The URL players open: ``http://HOST:PORT/`` plus ``?token=...`` when one is set."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    url = f"http://{shown}:{port}/"
    return url if token is None else f"{url}?token={quote(token, safe='')}"


class WebServer:
    """A running table page. ``url`` is what to print; ``close()`` stops it."""

    def __init__(
        self,
        session: TableSurface,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        *,
        token: str | None = None,
        allowed_hosts: Iterable[str] | None = None,
        allowed_origins: Iterable[str] = (),
        log_level: str = "warning",
        sock: socket.socket | None = None,
    ) -> None:
        """``sock``: a socket :func:`reserve` bound already (``host`` and ``port`` then
        only name it)."""
        if token is None and not is_loopback(host):
            token = new_token()
        self.token = token
        self.host = host
        app = create_app(
            session,
            token=token,
            bind_host=host,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
        )
        self._sock = sock if sock is not None else _bind(host, port)
        self.port: int = self._sock.getsockname()[1]
        self.url = page_url(_public_address(host), self.port, token)
        config = uvicorn.Config(
            app,
            log_level=log_level,
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
            ws_ping_interval=10.0,
            ws_ping_timeout=10.0,
            # Refuse an oversized WebSocket message (close 1009) from its frame header,
            # before it is buffered: the app's own check would only see it whole.
            ws_max_size=MAX_MESSAGE_BYTES,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._run, name=f"meridian-web-{self.port}", daemon=True
        )
        self._failure: BaseException | None = None
        # Set when the server's thread ends. close() waits on it, not on the thread:
        # a Ctrl-C that interrupts Thread.join() can leave is_alive() False while the
        # thread still runs (CPython), and the socket was then closed under uvicorn.
        self._stopped = threading.Event()

    def _run(self) -> None:
        try:
            self._server.run(sockets=[self._sock])
        except BaseException as exc:  # SystemExit from uvicorn included: report, don't die
            self._failure = exc
            LOGGER.exception("the table page server stopped with an error")
        finally:
            self._stopped.set()

    def start(self) -> WebServer:
        """Start serving; returns once the page accepts connections."""
        self._thread.start()
        # uvicorn has no "started" event to wait on: poll its flag while the thread lives.
        pause = threading.Event()
        deadline = START_TIMEOUT_S
        while not self._server.started and self._thread.is_alive() and deadline > 0:
            pause.wait(0.01)
            deadline -= 0.01
        if not self._server.started:
            self.close()
            raise WebServerError(
                f"the table page did not start on {self.host}:{self.port}: {self._failure!r}"
            )
        LOGGER.info("table page at %s", self.url)
        return self

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and self._server.started

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the server stops (or ``timeout``); True when it has stopped."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def close(self) -> None:
        """Stop serving and release the port. Safe to call twice."""
        self._server.should_exit = True
        if self._thread.ident is not None and not self._stopped.wait(timeout=5):
            LOGGER.warning("the table page server did not stop within 5 s")
        self._sock.close()

    def __enter__(self) -> WebServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<WebServer {self.url} running={self.running}>"


def serve(
    session: TableSurface,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    *,
    token: str | None = None,
    allowed_hosts: Iterable[str] | None = None,
    allowed_origins: Iterable[str] = (),
    log_level: str = "warning",
    sock: socket.socket | None = None,
) -> WebServer:
    """Serve the table page for ``session`` on a background thread and return the server.

    ``port=0`` picks a free port. A non-loopback ``host`` gets a fresh token when none
    is given; ``server.url`` carries it. Raises ``WebServerError`` when the port is busy.
    """
    server = WebServer(
        session,
        host,
        port,
        token=token,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
        log_level=log_level,
        sock=sock,
    )
    return server.start()
