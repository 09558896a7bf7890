"""`meridian-table bench fuzz`: hostile input for the link's parser and every file reader.

Two fuzzers, each from a fixed seed so a failure can be replayed:

- **link**: a real ``Link`` reads a real pty. On the other side a scripted board answers
  the handshake and then writes a stream of lines: good SENSE and BEAT frames, frames
  whose fields were mutated into what the firmware never sends (``-1``, ``+5``,
  ``0x1F``, ``1_0``, out-of-range numbers, missing and extra fields) with a *correct*
  CRC, frames with flipped bits, and random bytes. Figures: ``link_lines``,
  ``link_exceptions`` (tracebacks logged by the link, and subscriber errors),
  ``link_hangs`` (the link did not read the whole stream, or its watchdog fired),
  ``link_impossible_events`` (a SenseEvent or Snapshot outside the board), and
  ``link_bad_frames`` (CRC-valid frames it refused);
- **files**: every file reader (board profiles in JSON and TOML, calibration progress,
  game logs, the firmware's config.json, and each installed game's own readers from its
  spec: ``GameSpec.bench.file_readers``, e.g. a map or a deck) is fed
  mutations of a real file, random bytes and nesting up to 100,000 levels deep.
  Figures: ``file_inputs`` and ``file_tracebacks`` (an exception other than the
  reader's own error).

Targets: 0 exceptions, 0 hangs, 0 impossible events, 0 tracebacks (the verdict).
The tests replay a small slice of both (tests/hardening); this bench runs 100,000 link
lines and 2,000 file inputs per reader (``--quick``: 5,000 and 100).
"""

from __future__ import annotations

import json
import logging
import os
import random
import select
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from meridian_fw import wire
from meridian_fw.config import parse_config
from meridian_table.games.contract import FileReader
from meridian_table.link import Link, LinkEvent, SenseEvent, Snapshot
from meridian_table.sim import transport

LOGGER = logging.getLogger(__name__)

NAME = "fuzz"
HELP = ("Fuzz the link's parser through a pty, every file reader, and page command "
        "sequences against a live table; counts must be 0.")

LINK_LINES = 100_000
QUICK_LINK_LINES = 5_000
FILE_INPUTS = 2_000
QUICK_FILE_INPUTS = 100
#: page_sequences' targets (issue 27): memory and a person's page stay bounded.
PAGE_RSS_GROWTH_MB = 50
PAGE_P99_MS = 1000

ROWS, COLS, LEDS = 4, 6, 8
T_MS_MAX = (1 << 30) - 1
# Tokens the firmware never writes in a numeric field, and a few it does.
NASTY = ("-1", "+5", "0x1F", "1_0", " 1", "1e3", "99999999999999999999", "-0", "00", "0",
         "1", "FF", "ff", "\u0661", "1.5", "nan", "inf", "=", "rx=-1", "x=1", "*", "",
         "1073741824", "65536", "24", "2")
KINDS = ("SENSE", "SNAP", "BEAT", "PONG", "SHOWN", "NAK", "STATS", "FAULT")


# -- the link ------------------------------------------------------------------------


class _LinkWatch(logging.Handler):
    """Counts the link's logged tracebacks (its thread's catch-all)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.tracebacks = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info is not None:
            self.tracebacks += 1


def _frame(kind: str, seq: int, fields: list[str]) -> bytes:
    """A frame with a correct CRC whatever its fields hold (unlike wire.encode)."""
    body = " ".join([kind, str(seq), *fields]).encode("utf-8", "replace")
    return body + b"*%04X\n" % wire.crc16(body)


class _Board:
    """The scripted board on the pty's master side."""

    def __init__(self, pty: Any, rng: random.Random) -> None:  # a sim.pty.Pty
        self.pty = pty
        self.rng = rng
        self.seq = 0
        self.tx = 0
        self.closed: set[int] = set()
        self.inbuf = bytearray()
        self.written = 0
        self.good = 0

    def next_tx(self) -> int:
        self.tx = self.tx % 65535 + 1
        return self.tx

    def snap(self) -> bytes:
        masks = []
        for row in range(ROWS):
            mask = sum(1 << c for c in range(COLS) if row * COLS + c in self.closed)
            masks.append(f"{mask:02X}")
        return wire.encode("SNAP", self.next_tx(), (self.seq, ROWS, *masks))

    def answer(self) -> None:
        """Read what the host wrote and answer WHO, GETSNAP and PING like the firmware."""
        self.inbuf += self.pty.read()
        while (nl := self.inbuf.find(b"\n")) >= 0:
            line = bytes(self.inbuf[:nl])
            del self.inbuf[: nl + 1]
            try:
                frame = wire.decode(line)
            except wire.FrameError:
                continue
            if frame.type == "WHO":
                hello = (wire.PROTOCOL_VERSION, "0.1.0", "fuzz", ROWS, COLS, LEDS, "sense",
                         "00F0220F")
                self.send(wire.encode("HELLO", self.next_tx(), hello) + self.snap())
            elif frame.type == "GETSNAP":
                self.send(self.snap())
            elif frame.type == "PING" and frame.fields:
                self.send(wire.encode("PONG", self.next_tx(), (frame.fields[0],)))

    def send(self, data: bytes) -> None:
        """Write everything, waiting while the pty is full (nothing is dropped)."""
        fd: int | None = getattr(self.pty, "master", None)
        if fd is None:
            # Not a pty (the socket transport, where there is none): what it drops does
            # not count as written.
            dropped = self.pty.dropped
            self.pty.write(data)
            self.written += len(data) - (self.pty.dropped - dropped)
            return
        view = memoryview(data)
        while view and fd is not None:
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                select.select([], [fd], [], 0.05)
                self.answer()
        self.written += len(data)

    def good_sense(self, consume: bool = True) -> bytes:
        """The next SENSE event; ``consume=False`` only builds it (to be damaged)."""
        pos = self.rng.randrange(ROWS * COLS)
        closed = pos not in self.closed
        seq = self.seq % 65535 + 1
        if consume:
            (self.closed.add if closed else self.closed.discard)(pos)
            self.seq = seq
            self.good += 1
        t = self.rng.randrange(T_MS_MAX + 1)
        return wire.encode("SENSE", seq, (t, pos, 1 if closed else 0))

    def hostile(self) -> bytes:
        rng = self.rng
        roll = rng.random()
        if roll < 0.45:
            # A CRC-valid frame with fields the firmware cannot send. A SENSE carries the
            # next event number, so were it let through it would be delivered (and
            # counted as impossible); one that is in fact valid takes that number.
            kind = rng.choice(KINDS)
            fields = [rng.choice(NASTY) for _ in range(rng.randrange(0, 7))]
            if kind != "SENSE":
                return _frame(kind, rng.randrange(0, 65536), fields)
            seq = self.seq % 65535 + 1
            if _valid_sense(fields):
                self.seq = seq
            return _frame(kind, seq, fields)
        if roll < 0.65:
            good = bytearray(self.good_sense(consume=False) if rng.random() < 0.5 else self.snap())
            for _ in range(rng.randrange(1, 3)):
                i = rng.randrange(len(good) - 1)
                good[i] ^= 1 << rng.randrange(8)
            if good[:-1].find(b"\n") >= 0:
                good = good.replace(b"\n", b"#")[:-1] + b"\n"
            return bytes(good)
        if roll < 0.85:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80))).replace(
                b"\n", b"") + b"\n"
        return wire.encode("BEAT", self.next_tx(), (rng.randrange(1 << 20), 0))


def _valid_sense(fields: list[str]) -> bool:
    """What the firmware could send as SENSE fields on the fuzz board."""
    if len(fields) != 3 or fields[2] not in ("0", "1"):
        return False
    t, pos = fields[0], fields[1]
    plain = all(f.isascii() and f.isdigit() and (f == "0" or f[0] != "0") for f in (t, pos))
    return plain and int(t) <= T_MS_MAX and int(pos) < ROWS * COLS


def fuzz_link(lines: int, seed: int = 10, timeout: float = 120.0) -> dict[str, int]:
    """Feed ``lines`` lines to a real Link through a pty; returns the counts."""
    rng = random.Random(seed)
    impossible = 0
    delivered = 0
    lock = threading.Lock()

    def check(event: LinkEvent) -> None:
        nonlocal impossible, delivered
        with lock:
            if isinstance(event, SenseEvent):
                delivered += 1
                ok = (1 <= event.seq <= 65535 and 0 <= event.t_ms <= T_MS_MAX
                      and 0 <= event.pos < ROWS * COLS and isinstance(event.closed, bool))
                impossible += not ok
            elif isinstance(event, Snapshot):
                ok = 0 <= event.last_seq <= 65535 and all(
                    0 <= p < ROWS * COLS for p in event.closed)
                impossible += not ok

    watch = _LinkWatch()
    link_logger = logging.getLogger("meridian_table.link")
    link_logger.addHandler(watch)
    hangs = 0
    if not transport.pty_available():
        raise RuntimeError("the link fuzzer drives the link through a pty: run it on "
                           "Linux or macOS (the file readers are fuzzed everywhere)")
    pty = transport.open_port("pty")  # a sim.pty.Pty: the fuzzer writes to its master fd
    board = _Board(pty, rng)
    link = Link(pty.path, check)
    try:
        link.start()
        deadline = time.monotonic() + 10
        while link.state != "connected" and time.monotonic() < deadline:
            board.answer()
            time.sleep(0.005)
        if link.state != "connected":
            raise RuntimeError(f"the link did not connect to the fuzz pty: {link.detail}")
        # Every byte the link read so far was the handshake; the stream is counted from here.
        base = link.stats()["bytes_in"] - board.written
        for n in range(lines):
            board.send(board.good_sense() if rng.random() < 0.4 else board.hostile())
            if n % 64 == 0:
                board.answer()
        deadline = time.monotonic() + timeout
        while link.stats()["bytes_in"] - base < board.written and time.monotonic() < deadline:
            board.answer()
            time.sleep(0.01)
        settle = time.monotonic() + 1.0  # the last events are acknowledged and delivered
        while time.monotonic() < settle:
            board.answer()
            time.sleep(0.01)
        stats = link.stats()
        if stats["bytes_in"] - base < board.written or stats["stalls"] or (
            link.state != "connected"
        ):
            hangs += 1
    finally:
        link.close()
        pty.close()
        link_logger.removeHandler(watch)
    return {
        "link_lines": lines,
        "link_exceptions": watch.tracebacks + int(stats["callback_errors"]),
        "link_hangs": hangs,
        "link_impossible_events": impossible,
        "link_events_delivered": delivered,
        "link_bad_frames": int(stats["bad_frames"]),
        "link_garbage_or_bad_crc": int(stats["garbage"]) + int(stats["crc_errors"]),
    }


# -- the file readers ----------------------------------------------------------------


def _sample_profile() -> tuple[str, tuple[str, ...]]:
    """A shipped board profile of an installed game (its default), with its sites: the
    real file the profile, calibration and config readers start from."""
    from meridian_table.games import registry
    from meridian_table.profiles import load_profile

    for spec in registry.specs().values():
        if spec.boards is None:
            continue
        name = spec.default_profile(min(spec.player_counts), {})
        return name, tuple(load_profile(name).sites)
    raise RuntimeError("no installed game ships a board profile to fuzz the readers with")


def _profile(path: Path) -> None:
    from meridian_table.profiles import load_profile

    load_profile(path)


def _calibration(path: Path) -> None:
    from meridian_table.maker.calibration import Calibration
    from meridian_table.maker.calibration_run import load_progress
    from meridian_table.profiles import load_profile

    Calibration.from_progress(load_profile(_sample_profile()[0]), load_progress(path))


def _log(path: Path) -> None:
    from meridian_table.store import Store

    with Store.open(path, readonly=True) as store:
        for info in store.games():
            store.events(info.id)


def _firmware_config(path: Path) -> None:
    config, problem = parse_config(path.read_bytes().decode("utf-8", "replace"))  # type: ignore[no-untyped-call]
    if config is None and problem is None:
        raise AssertionError("parse_config returned neither a config nor a problem")


def _profile_json() -> bytes:
    from meridian_table.profiles.loader import resolve

    return resolve(_sample_profile()[0]).read_bytes()


def _profile_toml() -> bytes:
    from meridian_table.profiles.loader import resolve

    data = json.loads(resolve(_sample_profile()[0]).read_text())
    return "\n".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in data.items()
                     if v is not None).encode()


def _calibration_seed() -> bytes:
    name, sites = _sample_profile()
    return json.dumps({"format": 1, "profile": name, "steps": list(sites[:2]),
                       "measured": {sites[0]: 3}, "skipped": []}).encode()


def _platform_readers() -> tuple[FileReader, ...]:
    from meridian_table.maker.calibration import CalibrationError
    from meridian_table.profiles import ProfileError
    from meridian_table.store import StoreError

    return (
        FileReader("profile-json", ".json", _profile, (ProfileError,), _profile_json),
        FileReader("profile-toml", ".toml", _profile, (ProfileError,), _profile_toml),
        FileReader("calibration", ".progress.json", _calibration, (CalibrationError,),
                   _calibration_seed),
        FileReader("log", ".sqlite3", _log, (StoreError,), lambda: b""),  # see _log_seed
        FileReader("firmware-config", ".json", _firmware_config, (), _profile_json),
    )


def file_readers() -> dict[str, FileReader]:
    """Every reader ``bench fuzz`` tries, by name: the platform's (profiles, calibration,
    logs, the firmware's config) and each installed game's (``GameSpec.bench.file_readers``)."""
    from meridian_table.games import registry

    found = {reader.name: reader for reader in _platform_readers()}
    for spec in registry.specs().values():
        for reader in spec.bench.file_readers:
            found.setdefault(reader.name, reader)
    return found


def _toml(value: object) -> str:
    """A JSON value as a TOML value (inline tables; JSON's strings, numbers and
    booleans are TOML's too)."""
    if isinstance(value, dict):
        inner = ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()
                          if v is not None)
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def _log_seed(folder: Path) -> bytes:
    from meridian_table.games import registry
    from meridian_table.store import Store

    path = folder / "seed.sqlite3"
    if not path.exists():
        spec = next(iter(registry.specs().values()))
        players = [f"Player {n + 1}" for n in range(min(spec.player_counts))]
        first = spec.new_game({}, 1).legal()[0]
        with Store.open(path) as store:
            gid = store.create_game(spec.id, {}, players)
            store.append(gid, "action", {"notation": first, "player": players[0]})
        with Store.open(path) as store:
            pass  # checkpointed on close: the main file holds everything
    return path.read_bytes()


def _deep(rng: random.Random, suffix: str) -> bytes:
    depth = rng.choice((65, 100, 1_000, 5_000, 100_000))
    if suffix.endswith(".json"):
        opener, closer = rng.choice((("[", "]"), ('{"a":', "}")))
        closed = rng.random() < 0.5
        return (opener * depth + ("1" + closer * depth if closed else "")).encode()
    opener, closer = rng.choice((("[", "]"), ("{a=", "}")))
    closed = rng.random() < 0.5
    return ("a = " + opener * depth + ("1" + closer * depth if closed else "")).encode()


def _mutate(rng: random.Random, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(rng.randrange(1, 6)):
        if not data:
            break
        op = rng.random()
        i = rng.randrange(len(data))
        if op < 0.4:
            data[i] = rng.randrange(256)
        elif op < 0.6:
            del data[i: i + rng.randrange(1, 40)]
        elif op < 0.8:
            data[i:i] = rng.choice((b"-1", b"99999999999999999999", b"[[[[", b"{", b'"',
                                    b"\x00", b"\xff", b"1e999", b"nan", b"true", b"[]"))
        else:
            j = rng.randrange(len(data))
            data[i:i] = data[j: j + rng.randrange(1, 60)]
    return bytes(data)


def deep_inputs(reader: str, seed: int, count: int, folder: Path | None = None) -> Iterator[bytes]:
    """``count`` hostile inputs for ``reader``: deep nesting, mutations, random bytes."""
    rng = random.Random(f"{seed}-{reader}")
    chosen = file_readers()[reader]
    suffix = chosen.suffix
    base = chosen.seed() if reader != "log" else b""
    if reader == "log":
        with tempfile.TemporaryDirectory() as tmp:
            base = _log_seed(Path(folder or tmp))
    for n in range(count):
        kind = n % 3
        if kind == 0 and reader != "log":
            yield _deep(rng, suffix)
        elif kind == 1 or reader == "log":
            yield _mutate(rng, base)
        else:
            yield bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))


def read_file_safely(reader: str, data: bytes, folder: Path) -> None:
    """Write ``data`` as a file and read it with ``reader``: its own error is fine, any
    other exception raises AssertionError carrying the traceback."""
    chosen = file_readers()[reader]
    path = folder / f"fuzz-{reader}{chosen.suffix}"
    for side in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        side.unlink(missing_ok=True)
    path.write_bytes(data)
    try:
        chosen.read(path)
    except chosen.errors:
        return
    except Exception as exc:
        raise AssertionError(
            f"{reader} raised {exc!r} on {data[:80]!r}...\n{traceback.format_exc()}"
        ) from exc


def fuzz_files(per_reader: int, seed: int = 10) -> dict[str, int]:
    inputs = 0
    tracebacks = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for reader in file_readers():
            for data in deep_inputs(reader, seed, per_reader, folder):
                inputs += 1
                try:
                    read_file_safely(reader, data, folder)
                except AssertionError as exc:
                    tracebacks += 1
                    LOGGER.error("%s", exc)
    return {"file_inputs": inputs, "file_tracebacks": tracebacks}


def run(options: dict[str, Any]) -> dict[str, Any]:
    quick = bool(options.get("quick"))
    started = time.perf_counter()
    figures: dict[str, Any] = {}
    figures.update(fuzz_link(QUICK_LINK_LINES if quick else LINK_LINES))
    figures.update(fuzz_files(QUICK_FILE_INPUTS if quick else FILE_INPUTS))
    from meridian_table.bench import _page_fuzz as page_fuzz  # the live table, when it runs

    pages = page_fuzz.fuzz_pages(page_fuzz.QUICK_SEQUENCES if quick else page_fuzz.SEQUENCES)
    figures.update(pages)
    figures["seconds"] = round(time.perf_counter() - started, 1)
    checks = {
        "link_exceptions": figures["link_exceptions"] == 0,
        "link_hangs": figures["link_hangs"] == 0,
        "link_impossible_events": figures["link_impossible_events"] == 0,
        "file_tracebacks": figures["file_tracebacks"] == 0,
        "page_status_500": pages["page_status_500"] == 0,
        "page_hangs": pages["page_hangs"] == 0,
        "page_tracebacks": pages["page_tracebacks"] == 0,
        "page_rss_growth_mb": pages["page_rss_growth_mb"] < PAGE_RSS_GROWTH_MB,
        "page_max_children": pages["page_max_children"] <= pages["page_child_bound"],
        "page_p99_ms": pages["page_p99_ms"] < PAGE_P99_MS,
    }
    figures["targets"] = {name: 0 for name in checks}
    figures["targets"].update({"page_rss_growth_mb": f"< {PAGE_RSS_GROWTH_MB}",
                               "page_max_children": f"<= {pages['page_child_bound']}",
                               "page_p99_ms": f"< {PAGE_P99_MS}"})
    figures["verdict"] = {name: "pass" if ok else "fail" for name, ok in checks.items()}
    return figures
