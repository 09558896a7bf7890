"""The rp2 HAL's 74HC165 reader through the SIO registers (loaded only for sr165 boards)."""

import machine

from meridian_fw.scan import ShiftRegisterScanner

_GPIO_IN = 0xD0000004  # SIO GPIO_IN: every GPIO level in one 30-bit word
_GPIO_OUT_SET = 0xD0000014  # SIO GPIO_OUT_SET / _CLR: drive the masked outputs high / low
_GPIO_OUT_CLR = 0xD0000018


class GpioShiftRegister(ShiftRegisterScanner):
    """The 74HC165 chain with its clock and data through the SIO registers.

    168 bits of ``data.value()``, ``clk.value(1)``, ``clk.value(0)`` took 4.4 ms a pass
    on the emulated 125 MHz RP2040 (bench firmware, rp2040_emulated), more than the
    3 ms scan period of a 154-point board; a load and two stores of ``mem32`` a bit
    do the same work in 2.7 ms (reading a row at a time, names held in locals)."""

    def __init__(self, load, clk, data, bits, rows, cols, sleep_us, clk_gpio, data_gpio):
        ShiftRegisterScanner.__init__(self, load, clk, data, bits, rows, cols, sleep_us)
        self._cmask = 1 << clk_gpio
        self._dmask = 1 << data_gpio
        self._mem32 = machine.mem32

    def scan(self, masks):
        mem = self._mem32
        cmask = self._cmask
        dmask = self._dmask
        gin = _GPIO_IN  # locals: a global is a dictionary lookup on every bit
        gset = _GPIO_OUT_SET
        gclr = _GPIO_OUT_CLR
        load = self._load
        cols = self.cols
        load.value(0)
        self._sleep_us(1)
        load.value(1)
        for r in range(self.rows):
            mask = 0
            bit = 1
            for _ in range(cols):
                if not mem[gin] & dmask:
                    mask |= bit
                bit <<= 1
                mem[gset] = cmask
                mem[gclr] = cmask
            masks[r] = mask
        for _ in range(self._bits - self.rows * cols):  # the chain's unused inputs
            mem[gset] = cmask
            mem[gclr] = cmask
