"""The firmware side of the link: frames in, frames out, the SENSE ring, the timers.

Frames are built and checked by ``wire`` only. Every bad line costs that line
and one counter (readable with STATS); nothing here raises on bad input. See
docs/PROTOCOL.md for the frame types and docs/FIRMWARE.md for the behaviour.
"""

from array import array

from meridian_fw import wire
from meridian_fw.leds import effect_code

try:
    from micropython import const
except ImportError:
    def const(x):  # type: ignore[misc]  # CPython: no micropython module
        return x

# Counter indices, in the order of their names in STATS (_STAT_KEYS).
RX = const(0)
BAD_CRC = const(1)
GARBAGE = const(2)
TOO_LONG = const(3)
BAD_FORMAT = const(4)
UNKNOWN = const(5)
BAD_ARGS = const(6)
EXC = const(7)
OVERFLOW = const(8)
GHOST = const(9)
RESENT = const(10)
SCANS = const(11)
FRAMES_OUT = const(12)
_NCOUNTERS = const(13)
# Every counter name in one bytes object ("name=", separated by spaces): one object
# per name would cost each its own header.
_STAT_KEYS = (b"rx= bad_crc= garbage= too_long= bad_format= unknown= bad_args= exc= "
              b"overflow= ghost= resent= scans= frames_out=")

RING_SIZE = const(64)
_HOST_TIMEOUT_MS = const(3000)
_BEAT_MS = const(1000)
_STATS_MS = const(10000)
_RESEND_MS = const(250)
_RESEND_PER_POLL = const(4)
_READ_PER_POLL = const(256)
_MAX_FIELDS = const(8)
_SEQ_WRAP = const(65535)   # event SEQ runs 1..65535, then 1 again

# Host commands in fixed 8-byte slots (command k at k * 8): matched and named (in
# NAK) from one object. The _C_ indices follow the slot order.
_COMMANDS = b"WHO     ACK     GETSNAP PING    PLAN    PIX     SHOW    BRIGHT  IDENT   STATS   REPL    "
_C_WHO = const(0)
_C_ACK = const(1)
_C_GETSNAP = const(2)
_C_PING = const(3)
_C_PLAN = const(4)
_C_PIX = const(5)
_C_SHOW = const(6)
_C_BRIGHT = const(7)
_C_IDENT = const(8)
_C_STATS = const(9)
_C_REPL = const(10)
_NCOMMANDS = const(11)

# NAK reasons in 12-byte slots.
_REASONS = b"bad_args    incomplete  unknown_gen bad_leds    bad_palette bad_index   "
_R_BAD_ARGS = const(0)
_R_INCOMPLETE = const(1)
_R_UNKNOWN = const(2)
_R_BAD_LEDS = const(3)
_R_BAD_PALETTE = const(4)
_R_BAD_INDEX = const(5)


def _slot_end(table, start, width):
    """End of the word in the slot at ``start``: its first space, or start + width."""
    end = start
    while end < start + width and table[end] != 32:
        end += 1
    return end


def _command(buf, start, end):
    """Index of the command spelled by buf[start:end], or -1. Allocates nothing."""
    n = end - start
    if n < 1 or n > 8:
        return -1
    for k in range(_NCOMMANDS):
        o = k * 8
        if _slot_end(_COMMANDS, o, 8) - o == n:
            i = 0
            while i < n and buf[start + i] == _COMMANDS[o + i]:
                i += 1
            if i == n:
                return k
    return -1


def _num(buf, start, end, base):
    """Value of a decimal (base 10: 1..9 digits) or hex (base 16: 1..7 digits, either
    case) field buf[start:end], or -1 when it is not one."""
    if end <= start or end - start > (9 if base == 10 else 7):
        return -1
    v = 0
    while start < end:
        b = buf[start]
        if 48 <= b <= 57:
            d = b - 48
        elif base == 16 and 65 <= b <= 70:
            d = b - 55
        elif base == 16 and 97 <= b <= 102:
            d = b - 87
        else:
            return -1
        v = v * base + d
        start += 1
    return v


class Link:
    """Talks to the host through ``io`` (``read_byte() -> int``, ``write(buf, n)``).

    ``leds`` is the ``Leds`` object PLAN/PIX/SHOW/BRIGHT/IDENT act on; ``masks`` the
    reported occupancy (row masks) that SNAP sends. ``hello`` holds the HELLO fields
    as bytes: board, caps and boot; rows, cols and leds are ints.
    """

    def __init__(self, io, clock, leds, masks, rows, cols, board, caps, boot, nleds,
                 ring_size=RING_SIZE):
        self._io = io
        self._clock = clock
        self._leds = leds
        self._masks = masks
        self.rows = rows
        self.cols = cols
        self._board = board
        self._caps = caps
        self._boot = boot
        self._nleds = nleds
        self._hexw = (cols + 3) // 4 if cols else 1
        self.reader = wire.LineReader()
        self.enc = wire.Encoder()
        self.counters = [0] * _NCOUNTERS
        self._starts = [0] * _MAX_FIELDS
        self._ends = [0] * _MAX_FIELDS
        self._nf = 0
        self._fseq = 0
        # The SENSE ring: unacknowledged events, oldest at _tail.
        self._size = ring_size
        # Typed arrays: a position fits 16 bits; times are ticks (< 2**30 on the Pico,
        # 'l' is the platform's long, so a 64-bit port's ticks fit too).
        self._t = array("l", [0] * ring_size)
        self._pos = array("H", [0] * ring_size)
        self._st = bytearray(ring_size)
        self._sent_at = array("l", [0] * ring_size)
        self._tail = 0
        self.pending = 0
        self._tail_seq = 1      # SEQ of the oldest pending event
        self.last_seq = 0       # SEQ of the newest event ever queued (0: none yet)
        self._rcur = 0
        self.overflowing = False
        self._dropped = 0
        # Timers.
        now = clock.ticks_ms()
        self._last_rx = now
        self.host_lost = True
        self._next_beat = now
        self._next_stats = clock.ticks_add(now, _STATS_MS)
        self._last_tick = now
        self._ms = 0
        self.uptime_s = 0
        self.stop_requested = False
        self._fault_key = b""
        self._fault_reason = b""

    # --- output ---------------------------------------------------------------------

    def _begin(self, ftype):
        self._fseq = (self._fseq + 1) & 0xFFFF
        self.enc.begin(ftype, self._fseq)

    def _send(self):
        enc = self.enc
        n = enc.finish()
        if enc.overflow:
            return  # cannot happen with a validated config; never send a truncated frame
        self._io.write(enc.buf, n)
        self.counters[FRAMES_OUT] += 1

    def send_hello(self):
        enc = self.enc
        self._begin(b"HELLO")
        enc.add_int(wire.PROTOCOL_VERSION)
        enc.add_bytes(b"0.1.0")
        enc.add_bytes(self._board)
        enc.add_int(self.rows)
        enc.add_int(self.cols)
        enc.add_int(self._nleds)
        enc.add_bytes(self._caps)
        enc.add_bytes(self._boot)
        self._send()

    def send_snap(self):
        enc = self.enc
        self._begin(b"SNAP")
        enc.add_int(self.last_seq)
        enc.add_int(self.rows)
        masks = self._masks
        for r in range(self.rows):
            enc.add_hex(masks[r], self._hexw)
        self._send()

    def send_stats(self):
        enc = self.enc
        self.counters[TOO_LONG] = self.reader.too_long
        self._begin(b"STATS")
        counters = self.counters
        keys = _STAT_KEYS
        start = 0
        for i in range(_NCOUNTERS):
            end = start
            while keys[end] != 61:  # '='
                end += 1
            enc.add_kv(keys, counters[i], start, end)
            start = end + 2
        self._send()

    def send_beat(self):
        self._begin(b"BEAT")
        self.enc.add_int(self.uptime_s)
        self.enc.add_int(self.pending)
        self._send()

    def send_fault(self, code, detail):
        """FAULT code detail; ``detail`` is a bytes token or an int."""
        self._begin(b"FAULT")
        self.enc.add_bytes(code)
        if type(detail) is int:
            self.enc.add_int(detail)
        else:
            self.enc.add_bytes(detail)
        self._send()

    def set_config_fault(self, key, reason):
        """Remember a config problem; it is reported now, after each HELLO and each second."""
        self._fault_key = key
        self._fault_reason = reason
        self._send_config_fault()

    def _send_config_fault(self):
        if self._fault_key:
            self._begin(b"FAULT")
            self.enc.add_bytes(b"CONFIG")
            self.enc.add_bytes(self._fault_key)
            self.enc.add_bytes(self._fault_reason)
            self._send()

    def _nak(self, what, gen, reason):
        """NAK <command> [gen] <reason>; ``what`` and ``reason`` are slot indices."""
        enc = self.enc
        self._begin(b"NAK")
        o = what * 8
        enc.add_slice(_COMMANDS, o, _slot_end(_COMMANDS, o, 8))
        if gen >= 0:
            enc.add_int(gen)
        o = reason * 12
        enc.add_slice(_REASONS, o, _slot_end(_REASONS, o, 12))
        self._send()

    def _send_event(self, i, seq):
        enc = self.enc
        enc.begin(b"SENSE", seq)
        enc.add_int(self._t[i])
        enc.add_int(self._pos[i])
        enc.add_int(self._st[i])
        self._send()
        self._sent_at[i] = self._clock.ticks_ms()

    # --- the SENSE ring ---------------------------------------------------------------

    def queue_event(self, t, pos, closed):
        """Queue and send one debounced change. Returns False when the ring is full."""
        if self.overflowing or self.pending == self._size:
            self.counters[OVERFLOW] += 1
            self._dropped += 1
            if not self.overflowing:
                # The host learns it, and the SNAP carries the state the ring could not.
                self.overflowing = True
                self.send_fault(b"OVERFLOW", self._dropped)
                self.send_snap()
            return False
        seq = self.last_seq + 1
        if seq > _SEQ_WRAP:
            seq = 1
        self.last_seq = seq
        if self.pending == 0:
            self._tail_seq = seq
        i = (self._tail + self.pending) % self._size
        self._t[i] = t & 0x3FFFFFFF
        self._pos[i] = pos
        self._st[i] = 1 if closed else 0
        self.pending += 1
        self._send_event(i, seq)
        return True

    def _ack(self, upto):
        if not self.pending or not 1 <= upto <= _SEQ_WRAP:
            return
        # Distance from the oldest pending SEQ, in the 1..65535 cycle.
        d = (upto - self._tail_seq) % _SEQ_WRAP
        if d >= self.pending:
            return  # an old or a future ACK: nothing to drop
        d += 1
        self._tail = (self._tail + d) % self._size
        self.pending -= d
        self._tail_seq = (self._tail_seq - 1 + d) % _SEQ_WRAP + 1
        self._rcur = 0
        if self.pending == 0 and self.overflowing:
            # The ring drained: a fresh SNAP covers every change made while it was full.
            self.overflowing = False
            self._dropped = 0
            self.send_snap()

    def _resend(self, now):
        if not self.pending:
            return
        for _ in range(_RESEND_PER_POLL):
            if self._rcur >= self.pending:
                self._rcur = 0
            off = self._rcur
            i = (self._tail + off) % self._size
            self._rcur += 1
            if self._clock.ticks_diff(now, self._sent_at[i]) >= _RESEND_MS:
                seq = (self._tail_seq - 1 + off) % _SEQ_WRAP + 1
                self._send_event(i, seq)
                self.counters[RESENT] += 1

    # --- input ------------------------------------------------------------------------

    def poll(self, now):
        """Read what is waiting, act on complete lines, run the timers. Allocates nothing."""
        io = self._io
        reader = self.reader
        for _ in range(_READ_PER_POLL):
            b = io.read_byte()
            if b < 0:
                break
            if reader.feed(b):
                self._line(now)
                if self.stop_requested:
                    return
        clock = self._clock
        elapsed = clock.ticks_diff(now, self._last_tick)
        self._last_tick = now
        if elapsed > 0:
            self._ms += elapsed
            while self._ms >= 1000:
                self._ms -= 1000
                self.uptime_s += 1
        if not self.host_lost and clock.ticks_diff(now, self._last_rx) >= _HOST_TIMEOUT_MS:
            self.host_lost = True
            self._leds.nohost = True
        if clock.ticks_diff(now, self._next_beat) >= 0:
            self._next_beat = clock.ticks_add(now, _BEAT_MS)
            self.send_beat()
            self._send_config_fault()
        if clock.ticks_diff(now, self._next_stats) >= 0:
            self._next_stats = clock.ticks_add(now, _STATS_MS)
            self.send_stats()
        self._resend(now)

    def _line(self, now):
        reader = self.reader
        buf = reader.buf
        n = reader.length
        code = wire.check(buf, n)
        if code != wire.OK:
            if code == wire.ERR_CRC:
                self.counters[BAD_CRC] += 1
            elif code == wire.ERR_FORMAT:
                self.counters[BAD_FORMAT] += 1
            elif code == wire.ERR_GARBAGE:
                self.counters[GARBAGE] += 1
            return
        self.counters[RX] += 1
        # Split the body into fields (TYPE, SEQ, args...) by single spaces.
        end = wire.body_length(buf, n)
        starts = self._starts
        ends = self._ends
        nf = 0
        s = 0
        i = 0
        while i <= end:
            if i == end or buf[i] == 32:
                if nf < _MAX_FIELDS:
                    starts[nf] = s
                    ends[nf] = i
                nf += 1
                s = i + 1
            i += 1
        self._nf = nf
        was_lost = self.host_lost
        self._last_rx = now
        if was_lost:
            self.host_lost = False
            self._leds.nohost = False
        if _command(buf, starts[0], ends[0]) == _C_WHO:
            self._who()
            return
        if was_lost:
            # A host came (back): tell it who we are and what the board holds.
            self._who()
        self._dispatch(buf, now)

    def _who(self):
        self._leds.forget_gen()
        self.send_hello()
        self._send_config_fault()
        self.send_snap()

    def _arg(self, k):
        """Decimal value of argument k (field k + 2), or -1."""
        f = k + 2
        if f >= self._nf or f >= _MAX_FIELDS:
            return -1
        return _num(self.reader.buf, self._starts[f], self._ends[f], 10)

    def _dispatch(self, buf, now):
        cmd = _command(buf, self._starts[0], self._ends[0])
        nargs = self._nf - 2
        if cmd == _C_ACK:
            upto = self._arg(0)
            if nargs != 1 or upto < 0:
                self._bad(_C_ACK, -1)
            else:
                self._ack(upto)
        elif cmd == _C_PING:
            if nargs != 1:
                self._bad(_C_PING, -1)
                return
            self._begin(b"PONG")
            self.enc.add_slice(buf, self._starts[2], self._ends[2])
            self._send()
        elif cmd == _C_PIX:
            self._pix(buf, nargs)
        elif cmd == _C_PLAN:
            self._plan(buf, nargs)
        elif cmd == _C_SHOW:
            self._show(nargs)
        elif cmd == _C_GETSNAP:
            self.send_snap()
        elif cmd == _C_BRIGHT:
            level = self._arg(0)
            if nargs != 1 or not 0 <= level <= 255:
                self._bad(_C_BRIGHT, -1)
            else:
                self._leds.brightness = level
        elif cmd == _C_IDENT:
            seconds = self._arg(0)
            if nargs != 1 or not 0 <= seconds <= 3600:
                self._bad(_C_IDENT, -1)
            else:
                self._leds.identify(seconds)
        elif cmd == _C_STATS:
            self.send_stats()
        elif cmd == _C_REPL:
            self._begin(b"BYE")
            self.enc.add_bytes(b"repl")
            self._send()
            self.stop_requested = True
        else:
            self.counters[UNKNOWN] += 1

    def _bad(self, what, gen):
        self.counters[BAD_ARGS] += 1
        self._nak(what, gen, _R_BAD_ARGS)

    def _plan(self, buf, nargs):
        gen = self._arg(0)
        nleds = self._arg(1)
        if nargs != 3 or gen < 0 or nleds < 0:
            self._bad(_C_PLAN, gen)
            return
        leds = self._leds
        if not leds.begin_plan(gen, nleds):
            self.counters[BAD_ARGS] += 1
            self._nak(_C_PLAN, gen, _R_BAD_LEDS)
            return
        # Palette: RRGGBBE entries separated by commas, at most 16.
        i = self._starts[4]
        end = self._ends[4]
        slot = 0
        while i < end:
            if slot >= 16 or end - i < 7 or (end - i > 7 and buf[i + 7] != 44):
                break
            rgb = _num(buf, i, i + 6, 16)
            effect = effect_code(buf[i + 6])
            if rgb < 0 or effect < 0:
                break
            leds.stage_palette(slot, rgb, effect)
            slot += 1
            i += 8
        if i < end or slot == 0:
            leds.staged_gen = -1
            self.counters[BAD_ARGS] += 1
            self._nak(_C_PLAN, gen, _R_BAD_PALETTE)

    def _pix(self, buf, nargs):
        gen = self._arg(0)
        start = self._arg(1)
        if nargs != 3 or gen < 0 or start < 0:
            self._bad(_C_PIX, gen)
            return
        leds = self._leds
        if gen != leds.staged_gen:
            self._nak(_C_PLAN, gen, _R_UNKNOWN)
            return
        i = self._starts[4]
        end = self._ends[4]
        led = start
        while i < end:
            v = _num(buf, i, i + 1, 16)
            if v < 0 or not leds.stage_index(led, v):
                self.counters[BAD_ARGS] += 1
                self._nak(_C_PLAN, gen, _R_BAD_INDEX)
                return
            led += 1
            i += 1

    def _show(self, nargs):
        gen = self._arg(0)
        if nargs != 1 or gen < 0:
            self._bad(_C_SHOW, gen)
            return
        leds = self._leds
        if gen == leds.shown_gen and gen != leds.staged_gen:
            self._shown(gen)  # a repeated SHOW: confirm again
            return
        if gen != leds.staged_gen:
            self._nak(_C_PLAN, gen, _R_UNKNOWN)
            return
        if not leds.complete():
            self._nak(_C_PLAN, gen, _R_INCOMPLETE)
            return
        if leds.shown_gen >= 0 and gen <= leds.shown_gen:
            return  # stale: never show an older plan over a newer one
        leds.show_staged()
        self._shown(gen)

    def _shown(self, gen):
        self._begin(b"SHOWN")
        self.enc.add_int(gen)
        self._send()

