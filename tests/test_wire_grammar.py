"""decode() accepts exactly the lines encode() can produce (issue 10, item 3).

A CRC only proves the line was not damaged in transit; it says nothing about whether
the sender followed the grammar. So every line that passes decode() must re-encode to
itself byte for byte, and every line encode() writes must decode back to its parts.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meridian_fw import wire


def framed(body: bytes) -> bytes:
    """body + a correct '*CRC' trailer: CRC-valid, whatever the grammar says."""
    return body + b"*%04X" % wire.crc16(body)


@pytest.mark.parametrize(
    "body",
    [
        b"PING 1  x",  # an empty field between two spaces
        b"ACK 1 5 ",  # a trailing space
        b"PING 1 a*b",  # a '*' inside a field
        b"PING 01 x",  # a leading zero in SEQ: encode writes "1"
        b"PING 1 ",  # a space and then nothing
        b"PING  1",  # two spaces before SEQ
    ],
)
def test_crc_valid_lines_that_break_the_field_grammar_are_refused(body: bytes) -> None:
    line = framed(body)
    assert wire.check(line, len(line)) == wire.ERR_FORMAT
    with pytest.raises(wire.FrameError) as info:
        wire.decode(line + b"\n")
    assert info.value.code == wire.ERR_FORMAT


def test_one_carriage_return_is_tolerated_but_not_two() -> None:
    line = wire.encode("PING", 7, ["x"]).rstrip(b"\n")
    assert wire.decode(line + b"\r\n") == wire.Frame("PING", 7, ["x"])
    with pytest.raises(wire.FrameError):
        wire.decode(line + b"\r\r\n")


TYPES = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=8)
FIELD = st.text(alphabet=[chr(c) for c in range(33, 127) if c != 42], min_size=1, max_size=12)


@given(TYPES, st.integers(0, wire.MAX_SEQ), st.lists(FIELD, max_size=8))
def test_decode_of_encode_is_identity(ftype: str, seq: int, fields: list[str]) -> None:
    try:
        line = wire.encode(ftype, seq, fields)
    except ValueError:
        return  # too long for one line: encode refuses it, nothing to decode
    assert wire.decode(line) == wire.Frame(ftype, seq, fields)


# Bodies drawn from a small alphabet rich in the characters the grammar is about
# (spaces, '*', digits, letters), each given a correct CRC.
BODY = st.text(alphabet="AKPS019 *x-", min_size=1, max_size=24).map(str.encode)


@settings(max_examples=2000, derandomize=True)
@given(BODY)
def test_decode_accepts_only_what_encode_produces(body: bytes) -> None:
    line = framed(body)
    try:
        frame = wire.decode(line)
    except wire.FrameError:
        return
    assert wire.encode(frame.type, frame.seq, frame.fields) == line + b"\n"
