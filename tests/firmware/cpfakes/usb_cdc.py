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

    def read(self, size=-1):
        if size < 0:
            size = len(self.incoming)
        out = bytes(self.incoming[:size])
        self.incoming = self.incoming[size:]
        return out

    def write(self, buf):
        self.outgoing += bytes(buf)
        return len(buf)


data = Serial()
console = Serial()
