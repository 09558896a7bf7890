"""A TCP proxy on loopback standing for the network between a table and the club.

``cut()`` makes the network vanish without a word, as a Wi-Fi drop does: bytes already
on their way are swallowed, no reset is sent, new connections get no answer.
``restore()`` drops the stale connections and forwards again.
"""

from __future__ import annotations

import select
import socket
import threading


class Proxy:
    def __init__(self, target_port: int) -> None:
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.cut_off = threading.Event()
        self.stopped = threading.Event()
        self.sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, url: str) -> str:
        """``url`` with its port replaced by the proxy's."""
        head, _, tail = url.rpartition(f":{self.target[1]}/")
        return f"{head}:{self.port}/{tail}"

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                self.sockets.append(client)
            if self.cut_off.is_set():
                continue  # held open, never answered
            server = socket.create_connection(self.target)
            with self._lock:
                self.sockets.append(server)
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        try:
            while not self.stopped.is_set():
                ready, _, _ = select.select([a, b], [], [], 0.2)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    if not self.cut_off.is_set():
                        peers[sock].sendall(data)
        except OSError:
            return

    def cut(self) -> None:
        self.cut_off.set()

    def restore(self) -> None:
        with self._lock:
            stale, self.sockets = self.sockets, []
        for sock in stale:
            sock.close()
        self.cut_off.clear()

    def close(self) -> None:
        self.stopped.set()
        self.listener.close()
        self.restore()
