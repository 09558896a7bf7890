"""The integrating debouncer, alone and in the loop, with a clock about to wrap."""

from fwkit import NEAR_WRAP, WRAP, config, make_app, run_ms, senses

from meridian_fw.debounce import Debouncer


def test_flip_after_n_equal_scans_only():
    d = Debouncer(2, 4)
    changed = [0, 0]
    for _ in range(3):
        assert d.update([0b101, 0], changed) == 0
        assert d.state[0] == 0
    assert d.update([0b101, 0], changed) == 1
    assert changed[0] == 0b101 and d.state[0] == 0b101


def test_bounce_resets_the_count():
    d = Debouncer(1, 4)
    changed = [0]
    for raw in (1, 0, 1, 1, 0, 1, 1, 1):
        d.update([raw], changed)
        assert d.state[0] == 0
    d.update([1], changed)
    assert d.state[0] == 1 and changed[0] == 1


def test_each_switch_counts_on_its_own():
    d = Debouncer(1, 3)
    changed = [0]
    d.update([0b01], changed)
    d.update([0b11], changed)
    d.update([0b11], changed)
    assert changed[0] == 0b01
    d.update([0b11], changed)
    assert changed[0] == 0b10 and d.state[0] == 0b11


def test_n_of_one_and_fifteen():
    d1 = Debouncer(1, 1)
    changed = [0]
    d1.update([1], changed)
    assert d1.state[0] == 1
    d15 = Debouncer(1, 15)
    for _ in range(14):
        d15.update([1], changed)
    assert d15.state[0] == 0
    d15.update([1], changed)
    assert d15.state[0] == 1


def test_bad_n_is_refused():
    for n in (0, 16):
        try:
            Debouncer(1, n)
        except ValueError as e:
            assert "debounce_scans" in str(e)
        else:
            raise AssertionError("n=" + str(n) + " accepted")


def test_bounce_in_the_loop_gives_one_event_across_the_wrap():
    app, hal, ser, clock = make_app()
    assert clock.ticks_ms() >= NEAR_WRAP  # boot took a few scans; the wrap is still ahead
    ser.frames()
    # 0.5-1 ms reed bounce, sampled at 2 ms: closed, open, closed... then closed for good.
    for closed in (1, 0, 1, 0, 1, 1, 0):
        hal.set_pos(7, closed)
        run_ms(app, clock, 2)
    hal.set_pos(7, True)
    run_ms(app, clock, 40)
    events = senses(ser)
    assert events == [(1, 7, True)]
    # The wrap happened during the run and SENSE times are taken mod 2**30.
    assert clock.ticks_ms() < NEAR_WRAP


def test_held_switch_reports_once_and_resends_until_acked():
    app, hal, ser, clock = make_app()
    ser.frames()
    hal.set_pos(30, True)
    run_ms(app, clock, 20)
    frames = ser.frames("SENSE")
    assert len(frames) == 1 and frames[0].seq == 1
    t = int(frames[0].fields[0])
    assert 0 <= t < WRAP
    run_ms(app, clock, 300)
    again = ser.frames("SENSE")
    assert again and all(f.seq == 1 and f.fields[1] == "30" for f in again)
    ser.send("ACK", 5, [1])
    run_ms(app, clock, 2)
    ser.frames()
    run_ms(app, clock, 1000)
    assert ser.frames("SENSE") == []
    assert app.debouncer.state[2] == 1 << 6


def test_simultaneous_changes_in_one_row():
    app, hal, ser, clock = make_app()
    ser.frames()
    for col in (1, 4, 11):
        hal.set_switch(3, col, True)
    run_ms(app, clock, 12)
    assert senses(ser) == [(1, 37, True), (2, 40, True), (3, 47, True)]
    for col in (1, 11):
        hal.set_switch(3, col, False)
    run_ms(app, clock, 12)
    assert senses(ser) == [(4, 37, False), (5, 47, False)]


def test_drag_across_gives_no_ghost_events():
    app, hal, ser, clock = make_app()
    ser.frames()
    # A magnet slid quickly along row 5: each reed is closed for 6 ms (3 scans, N is 4),
    # overlapping its neighbour for 1 ms.
    for col in range(12):
        hal.set_switch(5, col, True)
        run_ms(app, clock, 1)
        if col:
            hal.set_switch(5, col - 1, False)
        run_ms(app, clock, 4)
    hal.set_switch(5, 11, False)
    run_ms(app, clock, 20)
    assert senses(ser) == []
    assert app.debouncer.state[5] == 0


def test_slow_drag_reports_each_square_once_in_order():
    app, hal, ser, clock = make_app()
    ser.frames()
    # Slow enough to count, with chatter at each edge: close/open exactly once each.
    for col in range(4):
        for closed in (1, 0, 1, 0, 1):
            hal.set_switch(0, col, closed)
            run_ms(app, clock, 1)
        run_ms(app, clock, 20)
        for closed in (0, 1, 0):
            hal.set_switch(0, col, closed)
            run_ms(app, clock, 1)
        run_ms(app, clock, 20)
    got = [(pos, closed) for _, pos, closed in senses(ser)]
    want = []
    for col in range(4):
        want.append((col, True))
        want.append((col, False))
    assert got == want


def test_ghost_corner_is_reported_as_a_fault_not_a_switch():
    app, hal, ser, clock = make_app(config(diodes=False))
    ser.frames()
    hal.set_switch(0, 0, True)
    run_ms(app, clock, 12)
    hal.set_switch(0, 1, True)
    run_ms(app, clock, 12)
    hal.set_switch(1, 0, True)   # the third corner: (1, 1) now reads closed too
    run_ms(app, clock, 12)
    frames = ser.frames()
    sensed = [(int(f.fields[1]), f.fields[2]) for f in frames if f.type == "SENSE"]
    ghosts = [int(f.fields[1]) for f in frames if f.type == "FAULT" and f.fields[0] == "GHOST"]
    assert sensed == [(0, "1"), (1, "1")]
    assert 13 in ghosts                   # (1, 1): the fourth corner is reported
    assert app.link.counters[9] >= 1      # the ghost counter
    # Lift (0, 0): the ghost vanishes, and (1, 0) is known to be real.
    hal.set_switch(0, 0, False)
    run_ms(app, clock, 12)
    sensed = [(int(f.fields[1]), f.fields[2]) for f in ser.frames("SENSE")]
    assert sensed == [(0, "0"), (12, "1")]
    assert app.ghost.holding == 0


def test_with_diodes_four_corners_are_four_pieces():
    app, hal, ser, clock = make_app()
    ser.frames()
    for r, c in ((0, 0), (0, 1), (1, 0), (1, 1)):
        hal.set_switch(r, c, True)
        run_ms(app, clock, 12)
    assert [pos for _, pos, _ in senses(ser)] == [0, 1, 12, 13]
