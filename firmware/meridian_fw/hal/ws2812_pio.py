"""WS2812 output through an RP2040 PIO state machine (interrupts stay on).

``neopixel.write()`` bit-bangs the whole strip with interrupts off (3.4 ms for
114 LEDs), which stalls USB CDC and the scan timer. Here a PIO state machine
makes the waveform; the CPU only hands it one 32-bit word per LED.

Timing: the state machine runs at 8 MHz (125 ns a cycle) and spends 10 cycles
on each bit, so bits go out at 800 kHz (1.25 us). A bit is three phases:

- T1 = 3 cycles (375 ns): the line is high for every bit;
- T2 = 4 cycles (500 ns): high for a 1, low for a 0;
- T3 = 3 cycles (375 ns): low for every bit (the next bit's ``out``).

So a 0 is 375 ns high then 875 ns low, and a 1 is 875 ns high then 375 ns low,
inside the WS2812B figures (T0H 0.25-0.55 us, T1H 0.65-0.95 us, each low time
0.3-1.0 us). When the FIFO runs dry the ``out`` stalls with the line low; the
20 ms between frames is far over the 300 us latch.

Autopull takes 24 bits a word, most significant bit first (shift left), so a
word holds the three strip bytes in its top 24 bits. ``show()`` packs
``buf`` (3 bytes per LED, already in strip order: the LED layer owns the colour
order) into a preallocated ``array('I')`` as 24-bit values (small ints on the
Pico, no allocation) and ``put(words, 8)`` shifts each into the top of the word.
"""

from array import array

import machine
import rp2

TYPE_CHECKING = False
if TYPE_CHECKING:
    # The PIO instruction names asm_pio gives the body (the stubs' RP2040 PIO v0 set,
    # which the RP2350 also runs).
    from typing import Callable  # noqa: F401  (used by the type comments)

    from rp2.asm_pio import jmp, label, nop, not_x, out, wrap, wrap_target, x

FREQ = 8_000_000  # 10 cycles a bit (T1 + T2 + T3) at 800 kHz


# The body is PIO assembly. asm_pio runs it with only the PIO instruction names as
# globals, so the phase lengths are locals here.
@rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT,
             autopull=True, pull_thresh=24)
def ws2812_program():
    t1 = 3  # cycles high for every bit
    t2 = 4  # cycles high for a 1, low for a 0
    t3 = 3  # cycles low for every bit
    wrap_target()
    label("bit")
    # T3: low; take the next bit into x (stalls here, low, when the FIFO is empty).
    out(x, 1).side(0)[t3 - 1]
    # T1: high; a 0 jumps to the low half.
    jmp(not_x, "zero").side(1)[t1 - 1]
    # T2 of a 1: stay high.
    jmp("bit").side(1)[t2 - 1]
    label("zero")
    # T2 of a 0: low.
    nop().side(0)[t2 - 1]
    wrap()


# Where a state machine's TX FIFO is (TXF0 + 4 x sm, in PIO0 at 0x50200000 or PIO1
# at 0x50300000, on the RP2040 and the RP2350 alike) and which DREQ paces a DMA
# channel to it (PIO0 TX0..3 = 0..3, PIO1 TX0..3 = 8..11).
_PIO_BASE = (0x50200000, 0x50300000)
_TXF0 = 0x010


class PioStrip:
    """``n`` WS2812 LEDs on GPIO ``pin`` driven by PIO state machine ``sm_id`` (0..7).

    ``buf`` is the strip-order byte buffer the renderer fills; ``show()`` sends it.
    ``sleep_us`` (the HAL clock's) waits out the last frame in ``deinit()``.

    The FIFO is fed by DMA when the port has ``rp2.DMA`` (MicroPython 1.21+) and a
    channel is free (``feed == "dma"``): ``show()`` repacks the frame into a
    preallocated word buffer and starts one transfer, paced by the FIFO's DREQ, so the
    loop spends microseconds on a frame instead of waiting about 3.3 ms for 114 LEDs
    to drain through ``put``. Otherwise (``feed == "put"``) ``put`` blocks as before.
    """

    def __init__(self, pin, n, sleep_us, sm_id=0, dma=True):
        # type: (int, int, Callable[[int], None], int, bool) -> None
        self._pin = pin
        self._n = n
        self._sm_id = sm_id
        self._sleep_us = sleep_us
        self.buf = bytearray(3 * n)
        self._sm = rp2.StateMachine(sm_id, ws2812_program, freq=FREQ,
                                    sideset_base=machine.Pin(pin))
        self._sm.active(1)
        self._live = True
        self._dma = None
        if dma and hasattr(rp2, "DMA"):
            self._dma = _claim_dma()
        if self._dma is not None:
            self.feed = "dma"
            block = sm_id >> 2
            self._txf = _PIO_BASE[block] + _TXF0 + 4 * (sm_id & 3)
            self._ctrl = self._dma.pack_ctrl(size=2, inc_read=True, inc_write=False,
                                             treq_sel=8 * block + (sm_id & 3))
            # One 32-bit word per LED, little-endian in memory: byte 0 stays 0, bytes
            # 3, 2, 1 hold the strip's bytes 0, 1, 2, so the word's top 24 bits are
            # the LED's bits in the order they go out (autopull, shift left). The
            # buffer is a heap block of its own, so word-aligned as 32-bit DMA reads need.
            self._wbytes = bytearray(4 * n)
            self._words = array("I")
        else:
            self.feed = "put"
            self._wbytes = bytearray(0)
            self._words = array("I", [0] * n)  # once; show() only overwrites it

    def show(self):
        """Hand the frame to the PIO; allocates nothing."""
        buf = self.buf
        dma = self._dma
        if dma is not None:
            # Frames are at least 20 ms apart and a transfer takes 3.4 ms, so this
            # wait is for safety only: never repack words the DMA is still reading.
            while dma.active():
                pass
            w = self._wbytes
            j = 0
            k = 0
            for _ in range(self._n):
                w[k + 3] = buf[j]
                w[k + 2] = buf[j + 1]
                w[k + 1] = buf[j + 2]
                j += 3
                k += 4
            dma.config(read=w, write=self._txf, count=self._n, ctrl=self._ctrl, trigger=True)
            return
        words = self._words
        j = 0
        for i in range(self._n):
            words[i] = (buf[j] << 16) | (buf[j + 1] << 8) | buf[j + 2]
            j += 3
        # put() returns once the last word is in the 4-deep FIFO, with interrupts on.
        self._sm.put(words, 8)

    def deinit(self):
        """Let the last frame finish, stop the state machine and hold the line low."""
        if not self._live:
            return
        sm = self._sm
        dma = self._dma
        if dma is not None:
            while dma.active():
                pass
            dma.close()
            self._dma = None
        while sm.tx_fifo():
            pass
        # The FIFO is empty but up to 4 words are still shifting out (30 us each),
        # then the latch: wait it out so a final off() really reaches the strip.
        self._sleep_us(4 * 30 + 300)
        sm.active(0)
        self._live = False
        try:
            rp2.PIO(self._sm_id >> 2).remove_program(ws2812_program)
        except (AttributeError, ValueError):
            pass  # older ports have no remove_program; the program just stays loaded
        # Back to a plain GPIO, driven low, so the data line does not float.
        machine.Pin(self._pin, machine.Pin.OUT, value=0)


def _claim_dma():
    try:
        return rp2.DMA()
    except (OSError, ValueError, RuntimeError):
        return None  # every channel is taken: put() still works
