"""The firmware bench on the real MicroPython unix port: the heap budget holds (Pico and
Pico 2 builds), the loop allocates nothing, and DMA frees the loop from the LED frame.

CPython only (the bench drives ``micropython`` as a subprocess); under tools/mptest.py
the test returns at once.
"""

from fwkit import MICROPYTHON


def test_the_pico_boot_path_stays_under_the_heap_target_and_the_loop_allocates_nothing():
    if MICROPYTHON:
        return
    from meridian_table.bench import firmware

    r = firmware.run({"quick": True, "emulated": False})  # tests/emu has its own
    assert r["heap_used_after_boot_bytes"] < r["heap_target_bytes"] == 64 * 1024
    # The simulated HAL costs more than rp2, never less; the stand-ins are excluded.
    assert r["heap_used_after_boot_bytes"] < r["heap_used_after_boot_sim_bytes"]
    assert 0 < r["heap_standins_excluded_bytes"] < 16 * 1024
    assert r["alloc_bytes_per_iteration"] == 0
    assert r["max_frame_current_ma"] <= r["budget_ma"]
    # The Pico 2 build boots in the same budget.
    assert r["heap_used_after_boot_pico2_bytes"] < r["heap_target_bytes"]
    # One 114-LED frame: the blocking put holds the loop for the FIFO drain, DMA does not.
    block = r["led_frame_loop_block_us"]
    assert block["pio_put"] >= r["led_frame_fifo_drain_modelled_us"] == 110 * 30
    assert block["dma"] < block["pio_put"] / 10
    assert r["scan_jitter_max_us"] == block
    latency = r["switch_to_led_latency_ms"]
    assert latency["dma"] < latency["pio_put"]
    assert r["verdict"] == "pass" or not r["checks"]["scan_ratio_at_most_1"], r["checks"]
