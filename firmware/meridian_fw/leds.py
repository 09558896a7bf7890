"""LED plans, effects, patterns, brightness and the current limiter.

The host stages a plan (PLAN/PIX/SHOW): a palette of up to 16 colour+effect
entries and one palette index per LED. The ``Leds`` object animates the effects
by itself, applies the global brightness and the current limiter, and writes the
strip buffer in the strip's byte order. ``order_offsets`` is the one place that
knows the byte order (GRB for WS2812).

Each frame is computed per palette entry (at most 16), not per LED; the per-LED
copy into the strip buffer runs only when the frame actually changed.
"""

from array import array

from meridian_fw.wire import EFFECT_LETTERS, MAX_PALETTE  # the one format module

try:
    from micropython import const
except ImportError:
    def const(x):  # type: ignore[misc]  # CPython: no micropython module
        return x

FRAME_MS = const(20)        # at most 50 frames per second
FLASH_MS = const(600)       # effect X: full colour this long after SHOW
PHASE_MS = const(2000)      # common period of B (1 s), F (250 ms) and P (2 s)

# Effects, in docs/PROTOCOL.md order.
OFF = 0
SOLID = 1
BLINK = 2
FAST = 3
PULSE = 4
FLASH = 5

# What the strip shows, by priority (highest wins).
MODE_PLAN = 0
MODE_BOOT = 1
MODE_NOHOST = 2
MODE_IDENT = 3
MODE_FAULT = 4
MODE_NAMES = ("plan", "boot", "nohost", "ident", "fault")

BOOT_MS = 900

# Pattern palettes: (RRGGBB, effect) for entry 1 (entry 0 is off).
_NOHOST_COLOUR = 0x0000FF   # every 8th LED breathing blue
_IDENT_COLOUR = 0xFFFFFF    # everything fast-blinking white
_FAULT_COLOUR = 0xFF0000    # the first 8 LEDs blinking red


def order_offsets(order):
    """(r, g, b) byte offsets within one LED for an order name such as "GRB"."""
    return (order.index("R"), order.index("G"), order.index("B"))


def effect_code(letter):
    """Effect number for a letter byte (ord('S') etc.), or -1."""
    i = 0
    for b in EFFECT_LETTERS:
        if b == letter:
            return i
        i += 1
    return -1


def effect_level(effect, phase, flash_age):
    """Level 0..256 of an effect at ``phase`` ms (mod 2000) and ``flash_age`` ms after SHOW."""
    if effect == SOLID:
        return 256
    if effect == BLINK:
        return 256 if phase % 1000 < 500 else 0
    if effect == FAST:
        return 256 if phase % 250 < 125 else 0
    if effect == PULSE:
        tri = phase if phase < 1000 else 2000 - phase
        # A breathing triangle between 10 % and 100 %, in 32 steps a half so the
        # strip is rewritten only when the level moves.
        step = tri * 32 // 1000
        return 26 + step * 230 // 32
    if effect == FLASH:
        return 256 if flash_age < FLASH_MS else 0
    return 0


class Leds:
    """Plan staging, effect animation and the limited frame for ``n`` LEDs.

    ``strip`` is an object with ``buf`` (bytearray of 3*n, strip byte order) and
    ``show()``; it may be None when no strip could be set up (fault mode).
    """

    def __init__(self, n, strip, clock, order="GRB", brightness=64, budget_ma=400,
                 ma_per_channel=20, idle_ma_per_led=1):
        self.n = n
        self._strip = strip
        self._clock = clock
        self._order = order_offsets(order)
        self.brightness = brightness
        self.budget_ma = budget_ma
        self.ma_per_channel = ma_per_channel
        self.idle_ma = idle_ma_per_led
        # Shown plan.
        self.shown_gen = -1
        self._pal = bytearray(MAX_PALETTE * 3)
        self._fx = bytearray(MAX_PALETTE)
        self._idx = bytearray(n)
        self._count = array("H", [0] * MAX_PALETTE)  # LEDs per palette entry
        self._count[0] = n
        # Staged plan.
        self.staged_gen = -1
        self._spal = bytearray(MAX_PALETTE * 3)
        self._sfx = bytearray(MAX_PALETTE)
        self._sidx = bytearray(n)
        self._sgot = bytearray(n)
        self._sfilled = 0
        self._snpal = 0
        # Pattern (boot, no host, identify, fault).
        self._ppal = bytearray(MAX_PALETTE * 3)
        self._pfx = bytearray(MAX_PALETTE)
        self._pidx = bytearray(n)
        self._pcount = array("H", [0] * MAX_PALETTE)
        self._pmode = -1
        # Frame state.
        self._cur = bytearray(MAX_PALETTE * 3)
        self._last = bytearray(MAX_PALETTE * 3)
        self._force = True
        self.boot = True
        self.nohost = False
        self.fault = False
        self._ident_until = 0
        self.ident = False
        self._phase = 0
        self._shown_at = clock.ticks_ms()
        self._booted_at = self._shown_at
        self._last_step = self._shown_at
        self._next_frame = self._shown_at
        self.frames = 0
        self.last_ma = 0
        self.limited = 0  # frames scaled down by the limiter
        self.mode = MODE_BOOT

    # --- plan staging (called by the link) ---------------------------------------

    def begin_plan(self, gen, nleds):
        """Start staging plan ``gen``; returns False when nleds does not match."""
        if nleds != self.n:
            return False
        self.staged_gen = gen
        self._snpal = 0
        sgot = self._sgot
        for i in range(self.n):
            sgot[i] = 0
        self._sfilled = 0
        return True

    def stage_palette(self, slot, rgb, effect):
        """Set staged palette entry ``slot`` (0..15) to colour 0xRRGGBB and effect number."""
        o = slot * 3
        self._spal[o] = (rgb >> 16) & 0xFF
        self._spal[o + 1] = (rgb >> 8) & 0xFF
        self._spal[o + 2] = rgb & 0xFF
        self._sfx[slot] = effect
        if slot >= self._snpal:
            self._snpal = slot + 1

    def stage_index(self, led, index):
        """Stage palette ``index`` for LED ``led``; False if either is out of range."""
        if not 0 <= led < self.n or not 0 <= index < self._snpal:
            return False
        self._sidx[led] = index
        if not self._sgot[led]:
            self._sgot[led] = 1
            self._sfilled += 1
        return True

    def complete(self):
        return self._sfilled == self.n

    def show_staged(self):
        """Swap the staged plan in. The caller checked gen and completeness."""
        self._pal, self._spal = self._spal, self._pal
        self._fx, self._sfx = self._sfx, self._fx
        self._idx, self._sidx = self._sidx, self._idx
        count = self._count
        for i in range(MAX_PALETTE):
            count[i] = 0
        idx = self._idx
        for i in range(self.n):
            count[idx[i]] += 1
        self.shown_gen = self.staged_gen
        self.staged_gen = -1
        self._shown_at = self._clock.ticks_ms()
        self._force = True
        # A new plan is what the players wait for: render it on the next step rather
        # than at the next 20 ms animation slot.
        self._next_frame = self._shown_at

    def forget_gen(self):
        """Accept any next gen (the host may have restarted and counts from 1 again)."""
        self.shown_gen = -1

    # --- patterns -------------------------------------------------------------------

    def identify(self, seconds):
        if seconds <= 0:
            self.ident = False
        else:
            self.ident = True
            self._ident_until = self._clock.ticks_add(self._clock.ticks_ms(), seconds * 1000)

    def _set_pattern(self, mode):
        if mode == self._pmode:
            return
        self._pmode = mode
        pidx = self._pidx
        ppal = self._ppal
        pfx = self._pfx
        n = self.n
        for i in range(MAX_PALETTE * 3):
            ppal[i] = 0
        colour = 0
        effect = OFF
        if mode == MODE_BOOT:
            # A channel test: R, G, B along the strip, so a wrong byte order shows at once.
            for i in range(n):
                pidx[i] = 1 + i % 3
            ppal[3] = 255
            ppal[7] = 255
            ppal[11] = 255
            pfx[1] = SOLID
            pfx[2] = SOLID
            pfx[3] = SOLID
        else:
            if mode == MODE_NOHOST:
                colour = _NOHOST_COLOUR
                effect = PULSE
                for i in range(n):
                    pidx[i] = 1 if i % 8 == 0 else 0
            elif mode == MODE_IDENT:
                colour = _IDENT_COLOUR
                effect = FAST
                for i in range(n):
                    pidx[i] = 1
            else:
                colour = _FAULT_COLOUR
                effect = BLINK
                for i in range(n):
                    pidx[i] = 1 if i < 8 else 0
            ppal[3] = (colour >> 16) & 0xFF
            ppal[4] = (colour >> 8) & 0xFF
            ppal[5] = colour & 0xFF
            pfx[1] = effect
        count = self._pcount
        for i in range(MAX_PALETTE):
            count[i] = 0
        for i in range(n):
            count[pidx[i]] += 1
        self._force = True

    def _choose_mode(self, now):
        clock = self._clock
        if self.ident and clock.ticks_diff(now, self._ident_until) >= 0:
            self.ident = False
        if self.fault:
            return MODE_FAULT
        if self.ident:
            return MODE_IDENT
        if self.boot:
            if clock.ticks_diff(now, self._booted_at) < BOOT_MS:
                return MODE_BOOT
            self.boot = False
        if self.nohost:
            return MODE_NOHOST
        return MODE_PLAN

    # --- rendering ------------------------------------------------------------------

    def step(self, now):
        """Render a frame when one is due and it differs from the last. Allocates nothing."""
        clock = self._clock
        if clock.ticks_diff(now, self._next_frame) < 0:
            return False
        elapsed = clock.ticks_diff(now, self._last_step)
        self._last_step = now
        self._next_frame = clock.ticks_add(now, FRAME_MS)
        if elapsed > 0:
            self._phase = (self._phase + elapsed) % PHASE_MS
        mode = self._choose_mode(now)
        if mode != self.mode:
            self.mode = mode
            self._force = True
        if mode == MODE_PLAN:
            pal = self._pal
            fx = self._fx
            idx = self._idx
            count = self._count
            flash_age = clock.ticks_diff(now, self._shown_at)
            if flash_age < 0 or flash_age > FLASH_MS:
                flash_age = FLASH_MS  # saturate: never overflows however long it is shown
        else:
            self._set_pattern(mode)
            pal = self._ppal
            fx = self._pfx
            idx = self._pidx
            count = self._pcount
            flash_age = 0
        self._compose(pal, fx, count, flash_age)
        if not self._force and self._cur == self._last:
            return False
        self._force = False
        cur = self._cur
        last = self._last
        for i in range(MAX_PALETTE * 3):
            last[i] = cur[i]
        self._write(idx)
        return True

    def _compose(self, pal, fx, count, flash_age):
        """Palette colours for this instant, after brightness and the current limiter."""
        cur = self._cur
        bright = self.brightness
        phase = self._phase
        total = 0
        for e in range(MAX_PALETTE):
            o = e * 3
            level = effect_level(fx[e], phase, flash_age) if count[e] else 0
            if level:
                k = level * bright
                r = pal[o] * k // 65280   # 65280 = 256 * 255
                g = pal[o + 1] * k // 65280
                b = pal[o + 2] * k // 65280
                total += count[e] * (r + g + b)
            else:
                r = g = b = 0
            cur[o] = r
            cur[o + 1] = g
            cur[o + 2] = b
        idle = self.idle_ma * self.n
        mpc = self.ma_per_channel
        ma = total * mpc // 255 + idle
        if ma > self.budget_ma:
            self.limited += 1
            avail = self.budget_ma - idle
            allowed = avail * 255 // mpc if avail > 0 else 0
            # Scale every channel by allowed/total in 10-bit fixed point; flooring
            # keeps the sum, hence the estimate, at or under the budget.
            k = allowed * 1024 // total if total else 0
            total = 0
            for e in range(MAX_PALETTE):
                o = e * 3
                r = cur[o] * k >> 10
                g = cur[o + 1] * k >> 10
                b = cur[o + 2] * k >> 10
                cur[o] = r
                cur[o + 1] = g
                cur[o + 2] = b
                total += count[e] * (r + g + b)
            ma = total * mpc // 255 + idle
        self.last_ma = ma

    def _write(self, idx):
        strip = self._strip
        if strip is None:
            return
        buf = strip.buf
        cur = self._cur
        o_r, o_g, o_b = self._order
        j = 0
        for i in range(self.n):
            e = idx[i] * 3
            buf[j + o_r] = cur[e]
            buf[j + o_g] = cur[e + 1]
            buf[j + o_b] = cur[e + 2]
            j += 3
        strip.show()
        self.frames += 1

    def estimate_ma(self, buf):
        """Estimated draw of a strip buffer (any byte order), for checks and the bench."""
        total = 0
        for v in buf:
            total += v
        return total * self.ma_per_channel // 255 + self.idle_ma * self.n

    def off(self):
        """Blank the strip (used when leaving the loop)."""
        strip = self._strip
        if strip is None:
            return
        buf = strip.buf
        for i in range(len(buf)):
            buf[i] = 0
        strip.show()
