"""The firmware's configuration (``config.json`` on the Pico; schema in docs/PROTOCOL.md).

``load_config(path)`` and ``validate(raw)`` never raise: they return
``(config, problem)`` where ``problem`` is None or a ``(key, reason)`` pair of short
ASCII tokens, sent to the host as ``FAULT CONFIG <key> <reason>``. A bad config
must give a clear error over the link and a fault pattern, never a dead board.
"""

try:
    import json
except ImportError:  # pragma: no cover - every port we target has json
    json = None  # type: ignore[assignment]

CONFIG_FILE = "config.json"

MAX_ROWS = 32
MAX_COLS = 30      # a row mask must stay a small int on the RP2040 (< 2**30)
MAX_LEDS = 1024    # keeps the current limiter's fixed-point maths under 2**30
MAX_PIN = 47

# Reasons sent after the key in FAULT CONFIG.
MISSING = "missing"
BAD = "bad_value"
UNREADABLE = "unreadable"
NOT_JSON = "not_json"

DEFAULTS = {  # type: dict
    "scanner": "matrix",
    "row_pins": None,
    "col_pins": None,
    "sr": None,
    "led_pin": None,
    "led_order": "GRB",
    "led_driver": "pio",
    "brightness": 64,
    "budget_ma": 400,
    "ma_per_channel": 20,
    "idle_ma_per_led": 1,
    "debounce_scans": 4,
    "scan_period_ms": 2,
    "settle_us": 100,
    "buttons": (),
    "diodes": True,
}


def _is_int(v):
    # bool is not int on MicroPython but is on CPython: exclude it explicitly.
    return type(v) is int


def _int_in(raw, key, lo, hi):
    v = raw[key]
    return _is_int(v) and lo <= v <= hi


def _pins(v, count):
    if not isinstance(v, (list, tuple)) or len(v) != count:
        return False
    for p in v:
        if not _is_int(p) or not 0 <= p <= MAX_PIN:
            return False
    return True


def _token_ok(s, limit):
    if not isinstance(s, str) or not 0 < len(s) <= limit:
        return False
    for ch in s:
        if not 33 <= ord(ch) <= 126 or ch == "*":
            return False
    return True


def snap_length(rows, cols):
    """Bytes of the longest SNAP frame for this geometry (must fit wire.MAX_LINE)."""
    width = (cols + 3) // 4
    # "SNAP 65535 65535 RR" + rows * " MASK" + "*CRC\n"
    return 19 + rows * (width + 1) + 6


def validate(raw):
    """Check a config dict; returns (config with defaults filled in, problem or None)."""
    if not isinstance(raw, dict):
        return None, ("config", BAD)
    cfg = {}  # type: dict
    for key in DEFAULTS:
        cfg[key] = DEFAULTS[key]
    for key in raw:
        cfg[key] = raw[key]
    for key in ("board", "rows", "cols", "leds"):
        if key not in raw:
            return cfg, (key, MISSING)
    if not _token_ok(cfg["board"], 32):
        return cfg, ("board", BAD)
    if not _int_in(cfg, "rows", 1, MAX_ROWS):
        return cfg, ("rows", BAD)
    if not _int_in(cfg, "cols", 1, MAX_COLS):
        return cfg, ("cols", BAD)
    rows = cfg["rows"]
    cols = cfg["cols"]
    if snap_length(rows, cols) > 250:
        return cfg, ("rows", "snap_too_long")
    if not _int_in(cfg, "leds", 0, MAX_LEDS):
        return cfg, ("leds", BAD)
    scanner = cfg["scanner"]
    if scanner == "matrix":
        if cfg["row_pins"] is None:
            return cfg, ("row_pins", MISSING)
        if not _pins(cfg["row_pins"], rows):
            return cfg, ("row_pins", BAD)
        if cfg["col_pins"] is None:
            return cfg, ("col_pins", MISSING)
        if not _pins(cfg["col_pins"], cols):
            return cfg, ("col_pins", BAD)
    elif scanner == "sr165":
        sr = cfg["sr"]
        if sr is None:
            return cfg, ("sr", MISSING)
        if not isinstance(sr, dict):
            return cfg, ("sr", BAD)
        for key in ("load", "clk", "data"):
            if key not in sr:
                return cfg, ("sr." + key, MISSING)
            if not _is_int(sr[key]) or not 0 <= sr[key] <= MAX_PIN:
                return cfg, ("sr." + key, BAD)
        if "bits" not in sr:
            return cfg, ("sr.bits", MISSING)
        bits = sr["bits"]
        # The chain is read bit by bit, pos = bit index: it must cover the matrix.
        if not _is_int(bits) or bits < rows * cols or bits % 8:
            return cfg, ("sr.bits", BAD)
    else:
        return cfg, ("scanner", BAD)
    if cfg["leds"] > 0:
        if cfg["led_pin"] is None:
            return cfg, ("led_pin", MISSING)
        if not _is_int(cfg["led_pin"]) or not 0 <= cfg["led_pin"] <= MAX_PIN:
            return cfg, ("led_pin", BAD)
    order = cfg["led_order"]
    if not isinstance(order, str) or len(order) != 3 or "R" not in order or "G" not in order or "B" not in order:
        return cfg, ("led_order", BAD)
    if cfg["led_driver"] not in ("pio", "neopixel"):
        return cfg, ("led_driver", BAD)
    if not _int_in(cfg, "brightness", 0, 255):
        return cfg, ("brightness", BAD)
    if not _int_in(cfg, "budget_ma", 10, 10000):
        return cfg, ("budget_ma", BAD)
    if not _int_in(cfg, "ma_per_channel", 1, 100):
        return cfg, ("ma_per_channel", BAD)
    if not _int_in(cfg, "idle_ma_per_led", 0, 10):
        return cfg, ("idle_ma_per_led", BAD)
    if not _int_in(cfg, "debounce_scans", 1, 15):
        return cfg, ("debounce_scans", BAD)
    if not _int_in(cfg, "scan_period_ms", 1, 100):
        return cfg, ("scan_period_ms", BAD)
    if not _int_in(cfg, "settle_us", 0, 5000):
        return cfg, ("settle_us", BAD)
    buttons = cfg["buttons"]
    if not isinstance(buttons, (list, tuple)):
        return cfg, ("buttons", BAD)
    for b in buttons:
        if not _is_int(b) or not 0 <= b < rows * cols:
            return cfg, ("buttons", BAD)
    if type(cfg["diodes"]) is not bool:
        return cfg, ("diodes", BAD)
    return cfg, None


def parse_config(text):
    """Parse JSON text and validate it; returns (config, problem)."""
    try:
        raw = json.loads(text)
    except (ValueError, RuntimeError):  # RuntimeError: nested too deep to read (both ports)
        return None, (CONFIG_FILE, NOT_JSON)
    return validate(raw)


def load_config(path=CONFIG_FILE):
    """Read and validate the config file; returns (config, problem). Never raises."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None, (CONFIG_FILE, MISSING)
    except UnicodeError:
        return None, (CONFIG_FILE, UNREADABLE)
    return parse_config(text)
