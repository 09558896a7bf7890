"""The wire format between the Pico and the host. The only definition of it.

One frame per line of printable ASCII::

    TYPE SEQ [FIELD ...]*CRC\\n

- TYPE: 1 to 8 upper-case letters (``HELLO``, ``SENSE``, ``PLAN``, ...).
- SEQ: decimal 0..65535. For SENSE it is the event sequence number (acknowledged
  by ACK); for every other type it is a per-sender frame counter, for logs only.
- FIELD: a token of printable ASCII (0x21..0x7E) other than ``*``; fields are
  separated by single spaces.
- CRC: four upper-case hex digits, CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF)
  over every byte before the ``*``.
- A line is at most MAX_LINE bytes, newline included. One ``\\r`` before ``\\n`` is
  tolerated. SEQ has no leading zero. A line that encode() could not have written
  (an empty field, a trailing space, a ``*`` in a field) is refused even when its CRC
  matches: decode(encode(x)) == x, and decode() refuses everything else. No 0x00 and no 0x03 byte can appear in a valid frame.

This module is written in the common subset of MicroPython and CPython. The
firmware uses ``Encoder`` and ``LineReader`` (no allocation per frame); the host
uses ``encode`` and ``decode``. docs/PROTOCOL.md lists every frame type.
"""

try:
    from micropython import const
except ImportError:  # CPython (the host): const() is the identity
    def const(x):  # type: ignore[misc]  # the stub declares it generic
        return x

PROTOCOL_VERSION = const(1)
MAX_LINE = const(250)  # bytes including the newline; fits the Pico's 256-byte CDC buffer
MAX_SEQ = const(65535)

# The LED language of PLAN/PAL frames (docs/PROTOCOL.md): one letter per effect, in the
# order of the effect numbers (O off, S solid, B blink, F fast blink, P pulse, X flash),
# and the largest palette a plan may use. The firmware and the host both read them here.
EFFECT_LETTERS = b"OSBFPX"
MAX_PALETTE = const(16)

# check() results. OK is 0; everything else names why a line was dropped.
OK = const(0)
ERR_EMPTY = const(1)      # blank line (not counted as an error by the firmware)
ERR_GARBAGE = const(2)    # a byte outside printable ASCII, or no '*CRC' trailer
ERR_CRC = const(3)        # the CRC does not match
ERR_FORMAT = const(4)     # the CRC matches but TYPE or SEQ is malformed
ERR_TOO_LONG = const(5)   # longer than MAX_LINE (reported by LineReader)

ERROR_NAMES = ("ok", "empty", "garbage", "bad_crc", "bad_format", "too_long")

_STAR = const(42)   # '*'
_SPACE = const(32)
_NL = const(10)
_CR = const(13)
_HEX = b"0123456789ABCDEF"

# The byte-wise CRC table, split into its high and low bytes: two 256-byte arrays
# hold what a tuple of 256 ints would (1 KB on the Pico, 2 KB on a 64-bit port).
# Built by module code, so no table-making function stays in memory.
_CRC_HI = bytearray(256)
_CRC_LO = bytearray(256)
for _i in range(256):
    _c = _i << 8
    for _ in range(8):
        _c = ((_c << 1) ^ 0x1021) & 0xFFFF if _c & 0x8000 else (_c << 1) & 0xFFFF
    _CRC_HI[_i] = _c >> 8
    _CRC_LO[_i] = _c & 0xFF
del _i, _c, _


def crc16(buf: "bytes | bytearray | memoryview", start: int = 0, end: int = -1) -> int:
    """CRC-16/CCITT-FALSE of buf[start:end] (end -1 means len(buf)). Allocates nothing."""
    if end < 0:
        end = len(buf)
    crc = 0xFFFF
    hi = _CRC_HI
    lo = _CRC_LO
    i = start
    while i < end:
        # crc = (crc << 8) ^ TABLE[(crc >> 8) ^ b], with TABLE split in two bytes.
        j = (crc >> 8) ^ buf[i]
        crc = (((crc ^ hi[j]) & 0xFF) << 8) | lo[j]
        i += 1
    return crc


def _hexval(b: int) -> int:
    if 48 <= b <= 57:
        return b - 48
    if 65 <= b <= 70:
        return b - 55
    return -1


def check(buf: "bytes | bytearray | memoryview", n: int) -> int:
    """Validate the line buf[0:n] (newline already stripped). Returns OK or an ERR_* code.

    Allocates nothing, so the firmware can reject garbage inside its hot loop.
    """
    if n > 0 and buf[n - 1] == _CR:
        n -= 1  # one CR before the newline is line-ending noise, not part of the frame
    if n == 0:
        return ERR_EMPTY
    i = 0
    while i < n:
        b = buf[i]
        if b < 32 or b > 126:
            return ERR_GARBAGE
        i += 1
    if n < 8 or buf[n - 5] != _STAR:
        return ERR_GARBAGE
    want = 0
    i = n - 4
    while i < n:
        v = _hexval(buf[i])
        if v < 0:
            return ERR_GARBAGE
        want = (want << 4) | v
        i += 1
    if crc16(buf, 0, n - 5) != want:
        return ERR_CRC
    # TYPE: 1..8 upper-case letters, then one space, then SEQ digits.
    i = 0
    while i < n - 5 and 65 <= buf[i] <= 90:
        i += 1
    if i == 0 or i > 8 or i >= n - 5 or buf[i] != _SPACE:
        return ERR_FORMAT
    i += 1
    start = i
    seq = 0
    while i < n - 5 and 48 <= buf[i] <= 57:
        seq = seq * 10 + buf[i] - 48
        i += 1
    if i == start or i - start > 5 or seq > MAX_SEQ or (buf[start] == 48 and i - start > 1):
        return ERR_FORMAT
    # FIELDS: each is one space then one or more bytes other than space and '*', exactly
    # what encode() writes, so a CRC-valid line that encode() could not produce is refused.
    end = n - 5
    while i < end:
        if buf[i] != _SPACE or i + 1 >= end or buf[i + 1] == _SPACE:
            return ERR_FORMAT
        i += 1
        while i < end and buf[i] != _SPACE:
            if buf[i] == _STAR:
                return ERR_FORMAT
            i += 1
    return OK


def body_length(buf: "bytes | bytearray | memoryview", n: int) -> int:
    """Length of the frame body (TYPE SEQ FIELDS) of a line that passed check()."""
    if n > 0 and buf[n - 1] == _CR:
        n -= 1
    return n - 5


class LineReader:
    """Collects bytes into one preallocated line buffer.

    feed(b) returns True when a complete line sits in ``buf[0:length]``; the
    caller must consume it before feeding more bytes. A line over MAX_LINE is
    dropped up to its newline and counted in ``too_long``.
    """

    def __init__(self, size: int = MAX_LINE) -> None:
        self.buf = bytearray(size)
        self.length = 0
        self.too_long = 0
        self._n = 0
        self._skipping = False

    def feed(self, b: int) -> bool:
        if b == _NL:
            if self._skipping:
                self._skipping = False
                self._n = 0
                return False
            self.length = self._n
            self._n = 0
            return True
        if self._skipping:
            return False
        if self._n >= len(self.buf) - 1:
            self._skipping = True
            self.too_long += 1
            return False
        self.buf[self._n] = b
        self._n += 1
        return False

    def reset(self) -> None:
        self._n = 0
        self.length = 0
        self._skipping = False


class Encoder:
    """Builds one frame in a preallocated buffer, for the firmware's hot paths.

    enc.begin(b"SENSE", seq); enc.add_int(t); ...; n = enc.finish()
    then write enc.buf[0:n] (memoryview(enc.buf)[0:n] avoids a copy).
    """

    def __init__(self, size: int = MAX_LINE) -> None:
        self.buf = bytearray(size)
        self.n = 0
        self.overflow = False

    def _put(self, b: int) -> None:
        if self.n < len(self.buf) - 6:
            self.buf[self.n] = b
            self.n += 1
        else:
            self.overflow = True

    def begin(self, ftype: bytes, seq: int) -> None:
        self.n = 0
        self.overflow = False
        for b in ftype:
            self._put(b)
        self._put(_SPACE)
        self._digits(seq)

    def _digits(self, v: int) -> None:
        if v < 0:
            self._put(45)  # '-'
            v = -v
        if v == 0:
            self._put(48)
            return
        start = self.n
        while v > 0:
            self._put(48 + v % 10)
            v //= 10
        # Reverse the digits in place.
        i = start
        j = self.n - 1
        buf = self.buf
        while i < j:
            t = buf[i]
            buf[i] = buf[j]
            buf[j] = t
            i += 1
            j -= 1

    def add_int(self, v: int) -> None:
        self._put(_SPACE)
        self._digits(v)

    def add_hex(self, v: int, width: int) -> None:
        """v as exactly `width` upper-case hex digits (width <= 8)."""
        self._put(_SPACE)
        shift = (width - 1) * 4
        while shift >= 0:
            self._put(_HEX[(v >> shift) & 0xF])
            shift -= 4

    def add_bytes(self, token: "bytes | bytearray | memoryview") -> None:
        """A field of printable ASCII (bytes, bytearray or memoryview)."""
        self._put(_SPACE)
        for b in token:
            self._put(b)

    def add_slice(self, src: "bytes | bytearray", start: int, end: int) -> None:
        """A field copied from src[start:end] without making a slice (no allocation)."""
        self._put(_SPACE)
        while start < end:
            self._put(src[start])
            start += 1

    def add_kv(self, key: "bytes | bytearray", v: int, start: int = 0, end: int = -1) -> None:
        """A ``key=value`` field with a decimal value (STATS); the key is
        key[start:end] (end -1 means len(key)), copied without a slice."""
        if end < 0:
            end = len(key)
        self._put(_SPACE)
        while start < end:
            self._put(key[start])
            start += 1
        self._put(61)  # '='
        self._digits(v)

    def finish(self) -> int:
        """Appends '*CRC\\n'; returns the frame length."""
        crc = crc16(self.buf, 0, self.n)
        buf = self.buf
        n = self.n
        buf[n] = _STAR
        buf[n + 1] = _HEX[(crc >> 12) & 0xF]
        buf[n + 2] = _HEX[(crc >> 8) & 0xF]
        buf[n + 3] = _HEX[(crc >> 4) & 0xF]
        buf[n + 4] = _HEX[crc & 0xF]
        buf[n + 5] = _NL
        return n + 6


class FrameError(ValueError):
    """A line that is not a valid frame. ``code`` is one of the ERR_* values."""

    def __init__(self, code: int, line: bytes) -> None:
        self.code = code
        self.line = line
        ValueError.__init__(self, "bad frame (" + ERROR_NAMES[code] + "): " + repr(line[:60]))


class Frame:
    """A decoded frame: type (str), seq (int) and fields (list of str)."""

    def __init__(self, ftype: str, seq: int, fields: "list[str]") -> None:
        self.type = ftype
        self.seq = seq
        self.fields = fields

    def __repr__(self) -> str:
        return "Frame(" + repr(self.type) + ", " + repr(self.seq) + ", " + repr(self.fields) + ")"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Frame)
            and self.type == other.type
            and self.seq == other.seq
            and self.fields == other.fields
        )


def encode(ftype: str, seq: int, fields: "tuple | list" = ()) -> bytes:
    """The frame as bytes, newline included. Fields are str or int.

    Raises ValueError naming the bad part when a field is not a valid token or the
    frame would be longer than MAX_LINE.
    """
    if not ftype or len(ftype) > 8:
        raise ValueError("frame type must be 1 to 8 upper-case letters: " + repr(ftype))
    for ch in ftype:
        if not ("A" <= ch <= "Z"):
            raise ValueError("frame type must be 1 to 8 upper-case letters: " + repr(ftype))
    if not (0 <= seq <= MAX_SEQ):
        raise ValueError("sequence number out of 0..65535: " + repr(seq))
    parts = [ftype, str(seq)]
    for f in fields:
        s = str(f)
        if not s:
            raise ValueError("empty field in " + ftype + " frame")
        for ch in s:
            o = ord(ch)
            if o < 33 or o > 126 or o == _STAR:
                raise ValueError("field " + repr(s) + " of " + ftype + " has a byte outside printable ASCII (or a '*')")
        parts.append(s)
    body = " ".join(parts).encode()
    crc = crc16(body)
    line = body + b"*" + bytes((_HEX[(crc >> 12) & 0xF], _HEX[(crc >> 8) & 0xF],
                                _HEX[(crc >> 4) & 0xF], _HEX[crc & 0xF])) + b"\n"
    if len(line) > MAX_LINE:
        raise ValueError(ftype + " frame is " + str(len(line)) + " bytes; the limit is " + str(MAX_LINE))
    return line


def decode(line: bytes) -> Frame:
    """Decode one line (bytes, with or without its newline) into a Frame.

    Raises FrameError with the reason code when the line is not a valid frame.
    """
    if line and line[-1] == _NL:
        line = line[:-1]
    if len(line) + 1 > MAX_LINE:
        raise FrameError(ERR_TOO_LONG, line)
    code = check(line, len(line))
    if code != OK:
        raise FrameError(code, line)
    body = bytes(line[:body_length(line, len(line))]).decode()
    parts = body.split(" ")
    return Frame(parts[0], int(parts[1]), parts[2:])
