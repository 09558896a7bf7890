"""The page's bind errors name what is wrong: the address (--host) or the port (--port)."""

from __future__ import annotations

import errno
import socket
from collections.abc import Iterator

import pytest
from tests.web.tables import Live, on_fake_link

from meridian_table.web import WebServerError, serve
from meridian_table.web.server import _bind_problem


@pytest.fixture
def table() -> Iterator[Live]:
    """A real table to serve (the server never gets as far as asking it anything)."""
    with on_fake_link() as running:
        yield running


def test_an_unresolvable_host_is_the_hosts_fault(table: Live) -> None:
    with pytest.raises(WebServerError) as info:
        serve(table, "999.1.1.1", 0)
    message = str(info.value)
    assert "--host '999.1.1.1'" in message and "--port" not in message


def test_an_address_of_another_machine_is_the_hosts_fault(table: Live) -> None:
    with pytest.raises(WebServerError) as info:
        serve(table, "192.0.2.1", 0)
    message = str(info.value)
    assert "not an address of this computer" in message and "--port" not in message


def test_a_port_in_use_is_the_ports_fault(table: Live) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(WebServerError) as info:
            serve(table, "127.0.0.1", port)
    message = str(info.value)
    assert f"127.0.0.1:{port}" in message and "port is in use" in message
    assert "--port 0" in message and "--host" not in message


def test_a_privileged_port_says_to_pick_one_above_1023() -> None:
    # Root may bind any port, so the refusal is built by hand: the errno decides.
    message = _bind_problem("127.0.0.1", 80, OSError(errno.EACCES, "Permission denied"))
    assert "port 80" in message and "1024" in message and "--host" not in message
