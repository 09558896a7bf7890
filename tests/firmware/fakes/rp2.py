"""A fake MicroPython ``rp2`` module: a PIO assembler and a cycle-counting emulator.

``asm_pio`` runs the decorated body with only the instruction names as its globals
(as the real one does: it clears the module's globals for the call, so a body that
reads a module constant fails here as on the board) and records the program.
``StateMachine.put`` keeps the words it was given in a preallocated array, so a
put under ``micropython.heap_lock()`` allocates nothing. ``waveform(words)`` runs
the recorded program on those words and returns the pin as (level, cycles) runs,
so a test can check the bit timing. Only what the WS2812 program uses is modelled:
``out(x, n)``, ``jmp(label)``, ``jmp(not_x, label)``, ``nop()``, ``.side(v)``,
``[delay]``, ``wrap_target()``/``wrap()``, autopull with a threshold and shift left.
"""

from array import array

machines = {}      # state machine id -> the last StateMachine made with it
removed = []       # programs passed to PIO.remove_program


class PIO:
    OUT_LOW = 2
    OUT_HIGH = 3
    IN_LOW = 0
    IN_HIGH = 1
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1

    def __init__(self, id):
        if id not in (0, 1):
            raise ValueError("PIO block 0 or 1")
        self.n = id

    def remove_program(self, program=None):
        removed.append(program)


class _Instr:
    def __init__(self, op, a=None, b=None):
        self.op = op
        self.a = a
        self.b = b
        self.side_value = None
        self.delay = 0

    def side(self, v):
        self.side_value = v
        return self

    def __getitem__(self, delay):
        if not 0 <= delay <= 31:
            raise ValueError("delay 0..31")
        self.delay = delay
        return self


class Program:
    """What asm_pio recorded: instructions, labels, wrap points and the options."""

    def __init__(self, options):
        self.options = options
        self.instrs = []
        self.labels = {}
        self.wrap_target = 0
        self.wrap = -1

    def _emit(self, instr):
        self.instrs.append(instr)
        return instr

    def names(self):
        p = self

        def wrap_target():
            p.wrap_target = len(p.instrs)

        def wrap():
            p.wrap = len(p.instrs) - 1

        def label(name):
            p.labels[name] = len(p.instrs)

        def out(dest, n):
            return p._emit(_Instr("out", dest, n))

        def jmp(cond, target=None):
            if target is None:
                return p._emit(_Instr("jmp", None, cond))
            return p._emit(_Instr("jmp", cond, target))

        def nop():
            return p._emit(_Instr("nop"))

        return {"wrap_target": wrap_target, "wrap": wrap, "label": label, "out": out,
                "jmp": jmp, "nop": nop, "x": "x", "y": "y", "not_x": "not_x"}


def asm_pio(**options):
    def assemble(fn):
        prog = Program(options)
        g = fn.__globals__
        saved = g.copy()
        g.clear()
        g.update(prog.names())
        try:
            fn()
        finally:
            g.clear()
            g.update(saved)
        if prog.wrap < 0:
            prog.wrap = len(prog.instrs) - 1
        return prog
    return assemble


def waveform(prog, words):
    """Run ``prog`` on ``words`` (32-bit FIFO entries) until it stalls for want of data.

    Returns the side-set pin as a list of [level, cycles] runs.
    """
    opts = prog.options
    thresh = opts.get("pull_thresh", 32)
    if not opts.get("autopull") or opts.get("out_shiftdir", PIO.SHIFT_LEFT) != PIO.SHIFT_LEFT:
        raise ValueError("the fake emulates autopull with shift left only")
    runs = []
    level = 1 if opts.get("sideset_init") == PIO.OUT_HIGH else 0
    fifo = list(words)
    osr = 0
    shifted = thresh  # empty OSR: the first out pulls
    x = 0
    pc = prog.wrap_target
    while True:
        ins = prog.instrs[pc]
        if ins.op == "out" and shifted >= thresh:
            if not fifo:
                return runs  # stalls here, before its side-set takes effect
            osr = fifo.pop(0)
            shifted = 0
        if ins.side_value is not None:
            level = ins.side_value
        cycles = 1 + ins.delay
        if runs and runs[-1][0] == level:
            runs[-1][1] += cycles
        else:
            runs.append([level, cycles])
        nxt = pc + 1
        if ins.op == "out":
            n = ins.b
            value = osr >> (32 - n)
            osr = (osr << n) & 0xFFFFFFFF
            shifted += n
            if ins.a == "x":
                x = value
        elif ins.op == "jmp":
            if ins.a is None or (ins.a == "not_x" and x == 0):
                nxt = prog.labels[ins.b]
        if pc == prog.wrap and nxt == pc + 1:
            nxt = prog.wrap_target
        pc = nxt


class StateMachine:
    def __init__(self, id, program=None, *, freq=-1, sideset_base=None, **kw):
        sm_id = id
        prog = program
        if not 0 <= sm_id <= 7:
            raise ValueError("state machine 0..7")
        self.id = sm_id
        self.prog = prog
        self.freq = freq
        self.sideset_base = sideset_base
        self.running = False
        self.puts = 0
        self.sent = array("I", [0] * 1024)  # the words of the last put, after the shift
        self.sent_n = 0
        machines[sm_id] = self

    def active(self, value=None):
        if value is None:
            return self.running
        self.running = bool(value)
        return self.running

    def put(self, value, shift=0):
        if not self.running:
            raise RuntimeError("fake rp2: put to a stopped state machine would block forever")
        sent = self.sent
        n = 0
        if isinstance(value, int):
            sent[0] = (value << shift) & 0xFFFFFFFF
            n = 1
        else:
            for v in value:
                sent[n] = (v << shift) & 0xFFFFFFFF
                n += 1
        self.sent_n = n
        self.puts += 1

    def tx_fifo(self):
        return 0  # the fake drains at once

    def words(self):
        return list(self.sent[0:self.sent_n])


# DMA: one channel per DMA(); config(..., trigger=True) runs the transfer at once into
# the state machine whose TX FIFO address it writes to, as the words put() would leave.
_PIO_TXF = (0x50200010, 0x50300010)
dma_channels = []   # every DMA() made, in order
dma_limit = [12]    # channels the chip has (the tests lower it to model "all taken")


def _txf_of(sm_id):
    return _PIO_TXF[sm_id >> 2] + 4 * (sm_id & 3)


class DMA:
    def __init__(self):
        if len([d for d in dma_channels if not d.closed]) >= dma_limit[0]:
            raise OSError("fake rp2: no free DMA channel")
        self.channel = len(dma_channels)
        self.closed = False
        self.busy = False   # a test sets it to model a transfer still running
        self.ctrl_fields = {}
        self.transfers = 0
        self.read = None
        self.write = None
        self.count = 0
        self.ctrl = 0x3F << 15
        dma_channels.append(self)

    def pack_ctrl(self, *, default=None, enable=True, high_pri=False, size=2, inc_read=True,
                  inc_write=True, inc_read_rev=None, inc_write_rev=None, **kwargs):
        fields = {"enable": enable, "high_pri": high_pri, "size": size,
                  "inc_read": inc_read, "inc_write": inc_write}
        for key in kwargs:
            fields[key] = kwargs[key]
        self.ctrl_fields = fields
        # Like the hardware's CTRL register: EN, HIGH_PRIORITY, DATA_SIZE, INCR_READ,
        # INCR_WRITE, TREQ_SEL (bits 15..20).
        return ((1 if enable else 0) | (2 if high_pri else 0) | (size << 2)
                | (16 if inc_read else 0) | (32 if inc_write else 0)
                | (fields.get("treq_sel", 0x3F) << 15))

    @staticmethod
    def unpack_ctrl(value):
        return {"enable": value & 1, "size": (value >> 2) & 3, "treq_sel": (value >> 15) & 0x3F}

    def config(self, *, read=None, write=None, count=None, ctrl=None, trigger=False):
        if self.closed:
            raise ValueError("fake rp2: DMA channel used after close()")
        self.read = read
        self.write = write
        self.count = count
        if ctrl is not None:
            self.ctrl = ctrl
        if trigger:
            self.run()

    def run(self):
        """Move ``count`` 32-bit little-endian words from ``read`` to the FIFO at ``write``."""
        target = None
        for sm_id in machines:
            if _txf_of(sm_id) == self.write:
                target = machines[sm_id]
        if target is None:
            raise ValueError("fake rp2: DMA write address is no state machine's TX FIFO")
        if (self.ctrl >> 15) & 0x3F != 8 * (target.id >> 2) + (target.id & 3):
            raise ValueError("fake rp2: DMA not paced by the state machine's TX DREQ")
        if not target.running:
            raise RuntimeError("fake rp2: DMA to a stopped state machine never finishes")
        src = self.read
        sent = target.sent
        for i in range(self.count):
            k = 4 * i
            sent[i] = src[k] | (src[k + 1] << 8) | (src[k + 2] << 16) | (src[k + 3] << 24)
        target.sent_n = self.count
        self.transfers += 1

    def active(self, value=None):
        if value is None:
            if self.busy:
                self.busy = False   # it finishes while the caller waits
                return True
            return False
        return bool(value)

    def irq(self, handler=None, hard=False):
        return None

    def close(self):
        self.closed = True
