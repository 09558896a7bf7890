"""A fake CircuitPython ``usb_cdc`` with an in-memory data port."""


class Serial:
    def __init__(self):
        self.incoming = bytearray()
        self.outgoing = bytearray()
        self.timeout = 1
        self.write_timeout = None
        self.connected = True

    @property
    def in_waiting(self):
        return len(self.incoming)

    def read(self, n=1):
        out = bytes(self.incoming[:n])
        self.incoming = self.incoming[n:]
        return out

    def write(self, buf):
        self.outgoing += bytes(buf)
        return len(buf)


data = Serial()
console = Serial()
