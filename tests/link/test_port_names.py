"""Port names of every system a player owns: Linux, macOS (``/dev/cu.usbmodem*``) and
Windows (``COMn``), as pyserial's ``list_ports`` reports them there."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from meridian_table.link import discovery


def _pico(device: str, serial: str) -> SimpleNamespace:
    return SimpleNamespace(device=device, vid=0x2E8A, pid=0x0005, serial_number=serial,
                           description="Board in FS mode")


@pytest.mark.parametrize("devices", [
    ["COM10", "COM9", "COM3"],
    ["/dev/cu.usbmodem14201", "/dev/cu.usbmodem1101", "/dev/cu.usbmodem2101"],
    ["/dev/ttyACM10", "/dev/ttyACM2"],
])
def test_picos_are_found_and_listed_in_natural_order(monkeypatch: pytest.MonkeyPatch,
                                                     devices: list[str]) -> None:
    ports = [_pico(d, f"S{i}") for i, d in enumerate(devices)]
    ports.append(SimpleNamespace(device="COM1", vid=None, pid=None, serial_number=None,
                                 description="Communications Port"))
    monkeypatch.setattr(discovery.list_ports, "comports", lambda: ports)
    found = [c.port for c in discovery.find_picos()]
    assert found == sorted(devices, key=discovery.port_order)
    assert found[0] in ("COM3", "/dev/cu.usbmodem1101", "/dev/ttyACM2")
    assert discovery.resolve("auto", "S0") == devices[0]


def test_natural_order() -> None:
    assert sorted(["COM10", "COM9", "COM1"], key=discovery.port_order) == ["COM1", "COM9", "COM10"]
    assert discovery.port_order("socket://127.0.0.1:5000") < discovery.port_order(
        "socket://127.0.0.1:40000")
