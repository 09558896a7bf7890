"""Property tests of the wire codec: random bytes, splices and bit flips.

No input crashes the decoder or the firmware's LineReader; every valid frame that
follows garbage is decoded; nothing invalid is ever accepted as a frame.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from meridian_fw import wire

TYPES = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=8)
FIELD = st.text(alphabet=[chr(c) for c in range(33, 127) if c != 42], min_size=1, max_size=12)
FRAMES = st.builds(
    lambda t, s, f: wire.encode(t, s, f),
    TYPES, st.integers(0, wire.MAX_SEQ), st.lists(FIELD, max_size=6),
)


def lines_of(data: bytes) -> list[bytes | None]:
    """What the firmware's LineReader delivers for a byte stream (None: a too-long line)."""
    reader = wire.LineReader()
    out: list[bytes | None] = []
    too_long = 0
    for b in data:
        if reader.feed(b):
            out.append(bytes(reader.buf[: reader.length]))
        if reader.too_long != too_long:
            too_long = reader.too_long
            out.append(None)
    return out


def accepted(data: bytes) -> list[wire.Frame]:
    frames = []
    for line in lines_of(data):
        if line is None:
            continue
        if wire.check(line, len(line)) == wire.OK:
            frames.append(wire.decode(line))
        else:
            try:
                wire.decode(line)
            except wire.FrameError:
                pass
            else:
                raise AssertionError(f"decode accepted a line check() refused: {line!r}")
    return frames


@given(FRAMES)
def test_round_trip(frame: bytes) -> None:
    decoded = wire.decode(frame)
    assert wire.encode(decoded.type, decoded.seq, decoded.fields) == frame
    assert 0 not in frame and 3 not in frame and len(frame) <= wire.MAX_LINE


@given(st.binary(max_size=600))
def test_random_bytes_never_crash_and_accepted_frames_reencode(data: bytes) -> None:
    for frame in accepted(data):
        assert wire.encode(frame.type, frame.seq, frame.fields).rstrip(b"\n") in data


@settings(max_examples=300)
@given(st.binary(max_size=300), st.lists(FRAMES, min_size=1, max_size=5))
def test_every_valid_frame_after_garbage_is_decoded(garbage: bytes, frames: list[bytes]) -> None:
    # Garbage, then a newline to end it (it may be a partial line), then good frames.
    stream = garbage + b"\n" + b"".join(frames)
    got = accepted(stream)
    want = [wire.decode(f) for f in frames]
    assert got[-len(want):] == want


@settings(max_examples=300)
@given(FRAMES, st.data())
def test_bit_flips_are_never_accepted(frame: bytes, data: st.DataObject) -> None:
    body = bytearray(frame[:-1])
    flips = data.draw(st.lists(st.integers(0, len(body) * 8 - 1), min_size=1, max_size=3,
                               unique=True))
    for bit in flips:
        body[bit // 8] ^= 1 << (bit % 8)
    if bytes(body) == frame[:-1]:
        return
    # CRC-16/CCITT detects every error of up to 3 flipped bits in frames this short.
    assert wire.check(body, len(body)) != wire.OK


@settings(max_examples=300, derandomize=True)
@given(st.lists(FRAMES, min_size=2, max_size=4), st.data())
def test_spliced_frames_are_refused(frames: list[bytes], data: st.DataObject) -> None:
    a, b = frames[0], frames[1]
    cut_a = data.draw(st.integers(1, len(a) - 2))
    cut_b = data.draw(st.integers(1, len(b) - 2))
    spliced = a[:cut_a] + b[cut_b:]
    valid = {f.rstrip(b"\n") for f in frames}
    for frame in accepted(spliced):
        line = wire.encode(frame.type, frame.seq, frame.fields).rstrip(b"\n")
        # A splice may only be accepted if it reproduces a real frame byte for byte.
        # (A CRC-16 collision is possible in principle, about 1 in 65536 splices; the
        # examples are derandomized so this test cannot flake.)
        assert line in valid


@given(st.integers(wire.MAX_LINE, 1000))
def test_too_long_lines_cost_one_line(n: int) -> None:
    good = wire.encode("PING", 1, ["x"])
    got = lines_of(b"A" * n + b"\n" + good)
    assert got[0] is None and wire.decode(got[-1]) == wire.decode(good)
