"""The VirtualBoard's own API: inputs checked, ports that vanish and come back, registry."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.link.collector import Collector
from tests.portable import BUSY_WORDS, port_exists

from meridian_table.link import Link, discovery
from meridian_table.profiles import load_profile
from meridian_table.sim import VirtualBoard, VirtualBoardError, micropython_binary

SMALL = {
    "board": "tiny",
    "rows": 2,
    "cols": 3,
    "row_pins": [0, 1],
    "col_pins": [2, 3, 4],
    "leds": 4,
    "led_pin": 5,
}


def test_bad_inputs_are_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="mode 'pypy' is not one of"):
        VirtualBoard(SMALL, mode="pypy")  # type: ignore[arg-type]
    with VirtualBoard(SMALL) as vb:
        with pytest.raises(ValueError, match=r"matrix position 6 is outside 0\.\.5 of this 2x3"):
            vb.set_switch(6, True)
        with pytest.raises(ValueError, match="built from a config dict, not a profile"):
            vb.set_site("G6", True)
    with pytest.raises(VirtualBoardError, match="closed; create a new one"):
        vb.start()


def test_sites_and_buttons_map_through_the_profile() -> None:
    profile = load_profile("kato-80")
    with VirtualBoard(profile) as vb:
        site = next(iter(profile.sites))
        vb.set_site(site, True)
        button = next(iter(profile.buttons))
        vb.set_site(button, True)
        assert vb.closed == {profile.sites[site].pos, profile.buttons[button]}
        with pytest.raises(KeyError, match="'Z99' is neither a site nor a button"):
            vb.set_site("Z99", True)
        assert vb.toggle(profile.sites[site].pos) is False


def test_unplug_removes_the_port_and_replug_brings_one_back(collector: Collector) -> None:
    with VirtualBoard(SMALL, closed={1}) as vb, Link(vb.find_port, collector) as link:
        link.wait_connected(5)
        first = vb.port
        assert port_exists(first)
        vb.unplug()
        assert vb.find_port() is None
        # The pty node goes once the firmware thread's pending select() lets go of it.
        collector.wait(lambda ev: not port_exists(first), timeout=2)
        assert vb.port == first  # still named for display while unplugged
        snapshots = len(collector.snapshots())
        vb.replug()
        assert vb.find_port() == vb.port and port_exists(vb.port)
        # "connected" comes with the board's hello; its occupancy comes after, in the
        # snapshot the link asks for (a busy machine showed the gap: CI, load 18).
        collector.wait(lambda ev: link.stats()["reconnects"] == 1 and link.state == "connected"
                       and len(collector.snapshots()) > snapshots)
        assert collector.snapshots()[-1].closed == {1}
        assert link.occupancy == {1}


def test_registered_boards_are_found_and_withdrawn(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MERIDIAN_SIM_REGISTRY", str(tmp_path))
    with VirtualBoard(SMALL, register=True) as vb:
        assert [c.port for c in discovery.find_sims()] == [vb.port]
        assert discovery.resolve("sim") == vb.port
        vb.unplug()
        assert discovery.find_sims() == []
        vb.replug()
        assert [(c.port, c.kind, c.description) for c in discovery.find_sims()] == [
            (vb.port, "sim", "tiny")
        ]
    assert discovery.find_sims() == []
    assert list(tmp_path.iterdir()) == []


def test_the_micropython_port_is_installed() -> None:
    assert Path(micropython_binary()).exists()


@pytest.mark.parametrize("mode", ["cpython", "micropython"])
def test_close_stops_the_firmware(mode: str) -> None:
    vb = VirtualBoard(SMALL, mode=mode)  # type: ignore[arg-type]
    vb.start()
    port = vb.port
    vb.close()
    vb.close()
    assert not port_exists(port)
    with pytest.raises(VirtualBoardError):
        vb.reset()


def test_a_second_host_cannot_steal_the_port(collector: Collector) -> None:
    with VirtualBoard(SMALL) as vb, Link(vb.find_port, collector) as first:
        first.wait_connected(5)
        second = Link(vb.port)
        with second:
            with pytest.raises(TimeoutError, match=BUSY_WORDS):
                second.wait_connected(0.5)
        assert first.state == "connected"
