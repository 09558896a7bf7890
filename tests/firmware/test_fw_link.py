"""The firmware side of the link: every bad line costs one line and one counter."""

from fwkit import config, make_app, run_ms

from meridian_fw import wire
from meridian_fw.link import BAD_ARGS, BAD_CRC, BAD_FORMAT, GARBAGE, OVERFLOW, RX, TOO_LONG, UNKNOWN


def _stats(ser):
    frames = ser.frames("STATS")
    out = {}
    for field in frames[-1].fields:
        k, v = field.split("=")
        out[k] = int(v)
    return out


def test_hello_carries_geometry_and_capabilities():
    app, hal, ser, clock = make_app()
    hello = ser.frames("HELLO")[0]
    proto, fw, board, rows, cols, leds, caps, boot = hello.fields
    assert proto == str(wire.PROTOCOL_VERSION) and fw == "0.1.0" and board == "test-12"
    assert (rows, cols, leds) == ("12", "12", "20")
    assert "sense" in caps.split(",") and "repl" in caps.split(",")
    assert len(boot) == 8 and int(boot, 16) >= 0


def test_each_bad_line_costs_one_line_and_a_counter():
    app, hal, ser, clock = make_app()
    ser.send("PING", 1, ["a"])
    run_ms(app, clock, 3)
    ser.frames()
    good = wire.encode("PING", 2, ["b"])
    flipped = bytearray(good)
    flipped[5] ^= 0x01
    ser.feed(b"\x01\x02garbage\n")                 # garbage
    ser.feed(bytes(flipped))                          # bad CRC
    ser.feed(good[:8] + b"\n")                        # truncated
    ser.feed(b"A" * 400 + b"\n")                      # too long
    ser.feed(wire.encode("FROB", 3))                  # unknown type
    ser.feed(wire.encode("BRIGHT", 4, ["999"]))       # bad args
    ser.feed(b"ping 5*0000\n")                        # a CRC that does not match
    body = b"ping 5"
    ser.feed(body + b"*" + f"{wire.crc16(body):04X}".encode() + b"\n")  # bad format
    ser.feed(good)                                    # and the next good line works
    run_ms(app, clock, 3)
    frames = ser.frames()
    assert [f.fields for f in frames if f.type == "PONG"] == [["b"]]
    assert [f.fields for f in frames if f.type == "NAK"] == [["BRIGHT", "bad_args"]]
    c = app.link.counters
    assert c[BAD_CRC] == 2 and c[UNKNOWN] == 1 and c[BAD_ARGS] == 1
    assert c[GARBAGE] == 2 and c[BAD_FORMAT] == 1
    assert c[RX] == 4
    ser.send("STATS", 6)
    run_ms(app, clock, 2)
    stats = _stats(ser)
    assert stats["too_long"] == 1 and app.link.counters[TOO_LONG] == 1
    assert stats["garbage"] == 2 and stats["bad_crc"] == 2 and stats["rx"] == 5


def test_ack_resend_and_sequence_wrap():
    app, hal, ser, clock = make_app()
    app.link.last_seq = 65534
    ser.frames()
    for pos in (1, 2, 3):
        hal.set_pos(pos, True)
        run_ms(app, clock, 12)
    seqs = [f.seq for f in ser.frames("SENSE")]
    assert seqs == [65534 + 1, 1, 2]
    run_ms(app, clock, 260)
    resent = sorted(set(f.seq for f in ser.frames("SENSE")))
    assert resent == [1, 2, 65535]
    ser.send("ACK", 9, [1])          # acknowledges 65535 and 1 across the wrap
    run_ms(app, clock, 2)
    assert app.link.pending == 1
    ser.frames()
    run_ms(app, clock, 300)
    assert sorted(set(f.seq for f in ser.frames("SENSE"))) == [2]
    ser.send("ACK", 10, [2])
    run_ms(app, clock, 2)
    assert app.link.pending == 0
    ser.send("ACK", 11, [2])         # a repeated ACK changes nothing
    run_ms(app, clock, 2)
    assert app.link.pending == 0


def test_overflow_is_flagged_and_a_snap_covers_the_rest():
    app, hal, ser, clock = make_app()
    ser.send("PING", 1, ["host"])
    run_ms(app, clock, 2)
    ser.frames()
    link = app.link
    for i in range(70):
        link.queue_event(clock.ticks_ms(), i % 144, True)
    frames = ser.frames()
    assert link.pending == 64 and link.counters[OVERFLOW] == 6
    faults = [f.fields for f in frames if f.type == "FAULT"]
    assert faults == [["OVERFLOW", "1"]]
    snaps = [f for f in frames if f.type == "SNAP"]
    assert len(snaps) == 1 and snaps[0].fields[0] == "64"
    ser.send("ACK", 1, [64])
    run_ms(app, clock, 2)
    snaps = ser.frames("SNAP")
    assert len(snaps) == 1 and not link.overflowing
    assert link.queue_event(clock.ticks_ms(), 5, False)


def test_snapshot_on_request_and_who():
    app, hal, ser, clock = make_app()
    hal.set_switch(11, 11, True)
    run_ms(app, clock, 12)
    ser.frames()
    ser.send("GETSNAP", 1)
    run_ms(app, clock, 2)
    snap = ser.frames("SNAP")[0].fields
    assert snap[0] == "1" and snap[-1] == "800"
    ser.send("WHO", 2)
    run_ms(app, clock, 2)
    assert [f.type for f in ser.frames() if f.type in ("HELLO", "SNAP")] == ["HELLO", "SNAP"]


def test_no_host_pattern_after_three_seconds_and_hello_on_return():
    app, hal, ser, clock = make_app()
    ser.send("PING", 1, ["t"])
    run_ms(app, clock, 1500)
    assert not app.link.host_lost
    for _ in range(2):
        ser.send("PING", 2, ["t"])
        run_ms(app, clock, 900)
    assert app.leds.mode == 0  # MODE_PLAN
    run_ms(app, clock, 3100)
    assert app.link.host_lost and app.leds.mode == 2  # MODE_NOHOST
    lit = [i for i, px in enumerate(hal.frame()) if px != (0, 0, 0)]
    assert lit and all(i % 8 == 0 for i in lit)
    ser.frames()
    ser.send("PING", 3, ["back"])
    run_ms(app, clock, 30)
    types = [f.type for f in ser.frames()]
    assert types[:3] == ["HELLO", "SNAP", "PONG"]
    assert app.leds.mode == 0


def test_beat_every_second_with_pending_count():
    app, hal, ser, clock = make_app()
    ser.frames()
    hal.set_pos(3, True)
    run_ms(app, clock, 2010)
    beats = ser.frames("BEAT")
    assert len(beats) == 3  # at boot, then each second
    assert [b.fields[0] for b in beats] == ["0", "1", "2"] and beats[-1].fields[1] == "1"


def test_repl_stops_the_loop():
    app, hal, ser, clock = make_app()
    ser.send("REPL", 1)
    app.run()          # returns: no thread, no timeout needed
    assert [f.fields for f in ser.frames("BYE")] == [["repl"]]


def test_plan_show_and_stale_generations():
    app, hal, ser, clock = make_app(config(leds=4, brightness=255))
    run_ms(app, clock, 1000)        # past the boot pattern
    ser.send("PING", 1, ["x"])
    ser.send("PLAN", 2, [5, 4, "000000O,FF0000S,0000FFS"])
    ser.send("PIX", 3, [5, 0, "1201"])
    ser.send("SHOW", 4, [5])
    run_ms(app, clock, 30)
    assert [f.fields for f in ser.frames("SHOWN")] == [["5"]]
    assert hal.frame() == [(255, 0, 0), (0, 0, 255), (0, 0, 0), (255, 0, 0)]
    # GRB on the wire to the strip.
    assert hal.raw_frame()[0:3] == bytes((0, 255, 0))
    # An older gen is never shown over a newer one.
    ser.send("PLAN", 5, [4, 4, "00FF00S"])
    ser.send("PIX", 6, [4, 0, "0000"])
    ser.send("SHOW", 7, [4])
    run_ms(app, clock, 30)
    assert ser.frames("SHOWN") == [] and app.leds.shown_gen == 5
    # Incomplete and wrong-size plans are refused with a NAK.
    ser.send("PLAN", 8, [6, 4, "00FF00S"])
    ser.send("PIX", 9, [6, 0, "00"])
    ser.send("SHOW", 10, [6])
    ser.send("PLAN", 11, [7, 9, "00FF00S"])
    ser.send("PLAN", 12, [8, 4, "00FF00Q"])
    run_ms(app, clock, 30)
    naks = [f.fields for f in ser.frames("NAK")]
    assert naks == [["PLAN", "6", "incomplete"], ["PLAN", "7", "bad_leds"],
                    ["PLAN", "8", "bad_palette"]]
    assert hal.frame()[0] == (255, 0, 0)


def test_stats_names_every_counter_in_order():
    app, hal, ser, clock = make_app()
    ser.send("STATS", 1)
    run_ms(app, clock, 2)
    keys = [f.split("=")[0] for f in ser.frames("STATS")[-1].fields]
    assert keys == ["rx", "bad_crc", "garbage", "too_long", "bad_format", "unknown",
                    "bad_args", "exc", "overflow", "ghost", "resent", "scans", "frames_out"]


def test_commands_match_whole_names_only_and_naks_name_them():
    app, hal, ser, clock = make_app()
    run_ms(app, clock, 2)
    ser.frames()
    # Prefixes, extensions and neighbours of real command names are unknown types.
    for name in ("PIN", "PINGS", "WH", "ACKS", "SHO", "GETSNAPS", "REPLY", "STAT"):
        ser.send(name, 1, ["1"])
    run_ms(app, clock, 3)
    assert app.link.counters[UNKNOWN] == 8
    assert ser.frames("NAK") == []
    # Each command with bad arguments is refused by its own name.
    ser.send("ACK", 2, ["x"])
    ser.send("PING", 3)
    ser.send("BRIGHT", 4, ["256"])
    ser.send("IDENT", 5, ["9999"])
    ser.send("SHOW", 6)
    ser.send("PIX", 7, ["1"])
    ser.send("PLAN", 8, ["1"])
    ser.send("PIX", 9, [3, 0, "0"])     # a gen never staged
    run_ms(app, clock, 3)
    naks = [f.fields for f in ser.frames("NAK")]
    assert naks == [["ACK", "bad_args"], ["PING", "bad_args"], ["BRIGHT", "bad_args"],
                    ["IDENT", "bad_args"], ["SHOW", "bad_args"], ["PIX", "1", "bad_args"],
                    ["PLAN", "1", "bad_args"], ["PLAN", "3", "unknown_gen"]]
    ser.send("PLAN", 10, [4, 20, "FF0000S"])
    ser.send("PIX", 11, [4, 0, "1"])    # palette index 1 does not exist
    run_ms(app, clock, 3)
    assert [f.fields for f in ser.frames("NAK")] == [["PLAN", "4", "bad_index"]]


def test_crc16_is_ccitt_false():
    # The catalogue check value of CRC-16/CCITT-FALSE, and a bitwise reference.
    assert wire.crc16(b"123456789") == 0x29B1
    data = bytes(range(256)) + b"SENSE 17 123 45 1"
    for start, end in ((0, len(data)), (3, 40), (200, 273), (5, 5)):
        crc = 0xFFFF
        for b in data[start:end]:
            crc ^= b << 8
            for _ in range(8):
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        assert wire.crc16(data, start, end) == crc
