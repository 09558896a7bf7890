#!/usr/bin/env node
// The emulated Pico: MicroPython's own rp2 build (RPI_PICO UF2) in rp2040js, with the
// board around it modelled at pin level. Started by meridian_table.sim.emu.EmulatedBoard;
// plain ESM, no build step.
//
//   node harness.mjs --rp2040js DIR --bootrom ROM --uf2 UF2 --fs IMAGE --board JSON
//
// DIR is the rp2040js package folder (npm, pinned 1.4.1); IMAGE a littlefs2 image
// for the filesystem at flash offset 0xA0000 (written back to IMAGE on exit, so a
// reset keeps what the firmware or `flash` wrote); JSON the board's electrical model:
//   {"scanner": "matrix", "row_pins": [...], "col_pins": [...], "rows": R, "cols": C,
//    "diodes": true, "led_pin": 22, "leds": 114, "closed": [pos...]}
//   {"scanner": "sr165", "sr": {"load": 13, "clk": 10, "data": 12, "bits": 168}, ...}
//
// Control lines on stdin (one command a line):
//   W HEX            bytes from the host to the device's USB CDC OUT endpoint
//   S POS 0|1        a reed switch opens/closes (the world after injected faults)
//   D POS 0|1        the diode of switch POS is there (1) or missing (0)
//   B POS N US FINAL bounce: POS flips N times, US emulated microseconds apart, then
//                    ends at FINAL (0/1); the flips run on the emulated clock
//   H 0|1            the host stops (1) or resumes (0) reading the device's IN
//                    endpoint (a terminal that holds the port open but never reads);
//                    also while the model's "stall_pin" GPIO is driven high
//   T                print a status line (T {...}); with --profile it also holds the
//                    hottest PCs, peripheral reads and the last SSI operations
//   (--exact-waits: no fast-forward of busy waits; --max-lag-ms N: see MAX_LAG_NS)
//   Q                save the filesystem region to IMAGE and exit
// Lines on stdout:
//   U                the emulated host has configured the USB device (CDC is up)
//   R                the firmware reset the chip (machine.reset): the harness exits
//                    after saving the filesystem; the host boots a new one from it
//   D HEX            bytes the device sent over USB CDC
//   L N HEX          frame N decoded from the WS2812 data pin (3 bytes a LED, strip order)
//   P HEX            partial frame: the PIO state machine restarted after HEX bytes
//   T JSON           status (answer to T)
//   E TEXT           an error in the harness
//
// What is modelled and what is not: see docs/FIRMWARE.md, "The emulated Pico".
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
function arg(name, dflt) {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
}
const RP2040JS = arg('rp2040js');
const BOOTROM = arg('bootrom');
const UF2 = arg('uf2');
const FS_IMAGE = arg('fs');
const BOARD = JSON.parse(arg('board', '{}'));
// Emulated time may lag wall time by at most this much (ns) before the lag is
// forgiven: a busy stretch must not be followed by a burst of emulated seconds
// (the firmware would miss the host's pings and call the host lost).
const MAX_LAG_NS = Number(arg('max-lag-ms', '50')) * 1e6;
const CHUNK_NS = 2e6; // emulated time per turn of the event loop at most

const { GPIOPinState, LogLevel, ConsoleLogger, Simulator, USBCDC } = await import(
  pathToFileURL(join(RP2040JS, 'dist', 'esm', 'index.js')).href
);

const FLASH_START = 0x10000000;
const FS_OFFSET = 0xa0000; // MicroPython v1.23 RPI_PICO: 1408 KiB filesystem at 0xA0000
const FS_SIZE = 0x200000 - FS_OFFSET;
const FUNCTION_PIO0 = 6;
const FUNCTION_PIO1 = 7;

function out(line) {
  process.stdout.write(line + '\n');
}

function loadBootrom(path) {
  const buf = readFileSync(path);
  if (buf.length !== 16384) throw new Error(`${path}: a boot ROM is 16384 bytes, this one ${buf.length}`);
  const words = new Uint32Array(4096);
  for (let i = 0; i < 4096; i++) words[i] = buf.readUInt32LE(i * 4);
  return words;
}

function loadUF2(path, mcu) {
  const buf = readFileSync(path);
  for (let off = 0; off + 512 <= buf.length; off += 512) {
    if (buf.readUInt32LE(off) !== 0x0a324655 || buf.readUInt32LE(off + 4) !== 0x9e5d5157) {
      throw new Error(`${path}: not a UF2 file (bad magic at offset ${off})`);
    }
    if (buf.readUInt32LE(off + 8) & 1) continue; // not main flash
    const addr = buf.readUInt32LE(off + 12);
    const size = buf.readUInt32LE(off + 16);
    mcu.flash.set(buf.subarray(off + 32, off + 32 + size), addr - FLASH_START);
  }
}

const sim = new Simulator();
const mcu = sim.rp2040;
const clock = sim.clock;
mcu.logger = new ConsoleLogger(LogLevel.Error);
mcu.loadBootrom(loadBootrom(BOOTROM)); // (loadBootrom resets, which erases the flash)
loadUF2(UF2, mcu);
if (FS_IMAGE) {
  const img = readFileSync(FS_IMAGE); // empty: erased flash, MicroPython formats it at boot
  if (img.length > FS_SIZE) throw new Error(`${FS_IMAGE}: ${img.length} bytes, the filesystem holds ${FS_SIZE}`);
  mcu.flash.set(img, FS_OFFSET);
}

// -- SPI NOR flash on the SSI -------------------------------------------------------------
// rp2040js answers only the status command; this models a W25Q16 well enough for the
// boot ROM's flash routines (connect, exit XIP, erase, program, wait ready): chip select
// comes from IO_QSPI's SS output override (the ROM forces it around each command), each
// byte written to DR0 is shifted through the command and its answer queued for reading.
const flashStats = { erases: 0, programs: 0, bytes: 0, log: [] };
const flashLog = (what) => { flashStats.log.push(what); if (flashStats.log.length > 12) flashStats.log.shift(); };
const nor = {
  selected: false,
  cmd: [], // bytes of the current command so far
  rx: [],
  wel: false,
  reply(byte) {
    const c = this.cmd;
    c.push(byte & 0xff);
    const op = c[0];
    const n = c.length;
    const addr = () => ((c[1] << 16) | (c[2] << 8) | c[3]) >>> 0;
    switch (op) {
      case 0x05: return n >= 2 ? (this.wel ? 2 : 0) : 0xff; // status 1: never busy
      case 0x35: return n >= 2 ? 0x02 : 0xff; // status 2: QE set
      case 0x06: this.wel = true; return 0xff;
      case 0x04: this.wel = false; return 0xff;
      case 0x9f: return [0xff, 0xef, 0x40, 0x15][n - 1] ?? 0xff; // JEDEC id: W25Q16
      case 0x4b: return n >= 6 ? [0xe6, 0x60, 0x58, 0x38, 0x83, 0x4a, 0x2c, 0x28][(n - 6) & 7] : 0xff;
      case 0x03: return n >= 5 ? mcu.flash[(addr() + n - 5) & 0xffffff] : 0xff;
      case 0x0b: return n >= 6 ? mcu.flash[(addr() + n - 6) & 0xffffff] : 0xff;
      case 0x02:
        if (n >= 5 && this.wel) {
          const a = addr();
          const at = (a & ~0xff) | ((a + n - 5) & 0xff); // wraps inside the 256-byte page
          mcu.flash[at] &= byte; // NOR: programming only clears bits
          flashStats.bytes++;
        }
        return 0xff;
      default:
        return 0xff;
    }
  },
  end() {
    const c = this.cmd;
    if (c.length) {
      const op = c[0];
      const sizes = { 0x20: 4096, 0x52: 32768, 0xd8: 65536 };
      if (sizes[op] && c.length >= 4 && this.wel) {
        const size = sizes[op];
        const a = (((c[1] << 16) | (c[2] << 8) | c[3]) >>> 0) & ~(size - 1);
        mcu.flash.fill(0xff, a, a + size);
        flashStats.erases++;
        flashLog(`E${size >> 10}K@${a.toString(16)}`);
        this.wel = false;
      } else if ((op === 0xc7 || op === 0x60) && this.wel) {
        mcu.flash.fill(0xff, 0, 0x200000);
        this.wel = false;
      } else if (op === 0x02 && this.wel) {
        flashStats.programs++;
        flashLog(`P${c.length - 4}@${(((c[1] << 16) | (c[2] << 8) | c[3]) >>> 0).toString(16)}`);
        this.wel = false;
      }
    }
    this.cmd = [];
  },
};
const ioQspi = mcu.findPeripheral(0x40018000);
const qspiRegs = new Map();
ioQspi.readUint32 = (offset) => qspiRegs.get(offset) ?? 0;
ioQspi.writeUint32 = (offset, value) => {
  qspiRegs.set(offset, value >>> 0);
  if (offset === 0x0c) { // GPIO_QSPI_SS_CTRL: OUTOVER 2 = drive low (select), 3 = high
    const over = (value >> 8) & 3;
    trace(`cs${over}`);
    if (over === 2 && !nor.selected) { nor.selected = true; nor.cmd = []; }
    else if (over !== 2 && nor.selected) { nor.selected = false; nor.end(); }
  }
};
const ssi = mcu.findPeripheral(0x18000000);
const ssiRead = ssi.readUint32.bind(ssi);
const ssiWrite = ssi.writeUint32.bind(ssi);
const ssiTrace = [];
const trace = (t) => { if (PROFILE_SSI) { ssiTrace.push(t); if (ssiTrace.length > 80) ssiTrace.shift(); } };
const PROFILE_SSI = argv.includes('--profile');
ssi.readUint32 = (offset) => {
  if (offset === 0x60) trace('r' + (nor.rx.length ? nor.rx[0].toString(16) : '-'));
  switch (offset) {
    case 0x20: return 0; // TXFLR: every byte goes out at once
    case 0x24: return nor.rx.length; // RXFLR
    case 0x28: return 0x06 | (nor.rx.length ? 0x08 : 0); // SR: TFE, TFNF, RFNE
    case 0x60: return nor.rx.length ? nor.rx.shift() : 0;
    default: return ssiRead(offset);
  }
};
ssi.writeUint32 = (offset, value) => {
  trace(`w${offset.toString(16)}=${value.toString(16)}${nor.selected ? 'S' : ''}`);
  if (offset === 0x08) { nor.rx = []; if (!nor.selected) nor.cmd = []; } // SSIENR: (re)enabling empties the FIFOs
  if (offset !== 0x60) { ssiWrite(offset, value); return; }
  if (nor.selected) {
    nor.rx.push(nor.reply(value));
  } else {
    // Chip select driven by the SSI itself (boot2): a command starts when the answers
    // to the previous one have all been read.
    if (!nor.rx.length) nor.cmd = [];
    nor.rx.push(nor.reply(value));
  }
};

// -- the switch matrix ------------------------------------------------------------------
const rows = BOARD.rows | 0;
const cols = BOARD.cols | 0;
const closed = new Uint8Array(rows * cols);
const noDiode = new Uint8Array(rows * cols).fill(BOARD.diodes === false ? 1 : 0);
for (const p of BOARD.closed || []) closed[p] = 1;
const gpio = mcu.gpio;
const rowPins = BOARD.row_pins || [];
const colPins = BOARD.col_pins || [];
const sr = BOARD.scanner === 'sr165' ? BOARD.sr : null;
const modelled = new Set([...colPins, ...(sr ? [sr.data] : [])]);
let srIndex = 0;
let srLatched = new Uint8Array(rows * cols);

// Which columns a driven-low row pulls low through the closed switches: a switch with
// its diode conducts column -> row only; one without conducts both ways, so three
// closed corners of a rectangle pull the fourth column low too (ghosting).
function columnsLow() {
  const low = new Uint8Array(cols);
  const rowLow = new Uint8Array(rows);
  let any = false;
  for (let r = 0; r < rows; r++) {
    const p = gpio[rowPins[r]];
    if (p && p.value === GPIOPinState.Low) { rowLow[r] = 1; any = true; }
  }
  if (!any) return low;
  // Flood from the low rows backwards: a column is low when it reaches a low row.
  const rowSeen = rowLow.slice();
  const stack = [];
  for (let r = 0; r < rows; r++) if (rowLow[r]) stack.push(r);
  while (stack.length) {
    const r = stack.pop();
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      if (!closed[i] || low[c]) continue;
      low[c] = 1; // current flows column c -> row r (diode or not)
      // From column c, on to any row whose switch on c has no diode (row -> column).
      for (let r2 = 0; r2 < rows; r2++) {
        const j = r2 * cols + c;
        if (!rowSeen[r2] && closed[j] && noDiode[j]) { rowSeen[r2] = 1; stack.push(r2); }
      }
    }
  }
  return low;
}

function srBit() {
  if (srIndex >= sr.bits) return true; // the last register's serial input is pulled up
  return srIndex < rows * cols ? !srLatched[srIndex] : true; // unused inputs pulled up
}

let resolving = false;
const ALL = [...Array(30).keys()];
const modelledList = [...modelled];
function resolve(pins = ALL) {
  if (resolving) return;
  resolving = true;
  try {
    const low = sr ? null : columnsLow();
    for (const g of pins) {
      const p = gpio[g];
      const v = p.value;
      if (v === GPIOPinState.High || v === GPIOPinState.Low) continue; // driven by the Pico
      let level;
      if (sr && g === sr.data) level = srBit();
      else if (!sr && modelled.has(g)) level = !low[colPins.indexOf(g)] && v !== GPIOPinState.InputPullDown && v !== GPIOPinState.Input;
      else level = v === GPIOPinState.InputPullUp; // the pull-ups rp2040js only reports
      if (p.rawInputValue !== level) p.setInputValue(level);
    }
  } finally {
    resolving = false;
  }
}

let srClkLevel = false;
const drivers = new Set(sr ? [sr.load, sr.clk] : rowPins);
for (let g = 0; g < 30; g++) {
  gpio[g].addListener(() => {
    if (sr) {
      const load = gpio[sr.load].value;
      const clk = gpio[sr.clk].value === GPIOPinState.High;
      if (g === sr.load && load === GPIOPinState.Low) { srLatched = closed.slice(); srIndex = 0; }
      if (g === sr.clk) {
        if (clk && !srClkLevel && load !== GPIOPinState.Low) srIndex++;
        srClkLevel = clk;
      }
    }
    // A row or the chain's clock/load changes what the modelled inputs read; any other
    // pin changes only its own level (its pull-up or pull-down).
    if (drivers.has(g)) resolve(modelledList);
    else resolve(modelled.has(g) ? modelledList : [g]);
  });
}

// -- WS2812 frames from the data pin ---------------------------------------------------------
// PIO time is not real in rp2040js (own timer loop, divider ignored): pulses are measured
// in the state machine's own cycles. Our program holds the line high 7 cycles for a 1 and
// 3 for a 0; the listener sees 7 and 4, and 5 for a 1 that ends a word (its falling
// edge comes from the stalled autopull `out`). So a 1 is anything over 4.
const nleds = BOARD.leds | 0;
const ledPin = BOARD.led_pin;
const frameBits = 24 * nleds;
const frameBuf = new Uint8Array(3 * nleds);
let bitCount = 0;
let riseAt = -1;
let frames = 0;
let pulseHist = {};
function smFor(pin) {
  const f = gpio[pin].functionSelect;
  const pio = mcu.pio[f === FUNCTION_PIO1 ? 1 : 0];
  for (const m of pio.machines) if (m.enabled && m.sidesetBase === pin) return m;
  for (const m of pio.machines) if (m.sidesetBase === pin) return m;
  return pio.machines[0];
}
let ledSm = null;
function resetDecoder(why) {
  if (bitCount) out(`P ${Buffer.from(frameBuf.subarray(0, bitCount >> 3)).toString('hex')} ${why}`);
  bitCount = 0;
  riseAt = -1;
  frameBuf.fill(0);
}
if (nleds && ledPin != null) {
  gpio[ledPin].addListener((state) => {
    const f = gpio[ledPin].functionSelect;
    if (f !== FUNCTION_PIO0 && f !== FUNCTION_PIO1) return;
    if (!ledSm) ledSm = smFor(ledPin);
    const t = ledSm.cycles;
    if (state === GPIOPinState.High) { riseAt = t; return; }
    if (riseAt < 0) return;
    const high = t - riseAt;
    riseAt = -1;
    pulseHist[high] = (pulseHist[high] || 0) + 1;
    const bit = high > 4 ? 1 : 0;
    if (bit) frameBuf[bitCount >> 3] |= 0x80 >> (bitCount & 7);
    bitCount++;
    if (bitCount === frameBits) {
      frames++;
      out(`L ${frames} ${Buffer.from(frameBuf).toString('hex')}`);
      bitCount = 0;
      frameBuf.fill(0);
    }
  });
}

// PIO in emulated time. rp2040js runs each PIO block in its own setTimeout loop, 1000
// steps a turn, out of step with the CPU, ignoring the clock divider and counting an
// instruction's delay cycles without waiting them out. Here the run loop steps each
// block itself, one step per divided clock cycle of emulated time (the divider of its
// first enabled machine), and a machine sits out its instruction's delay cycles: a
// WS2812 bit takes its 10 cycles at 8 MHz, 1.25 emulated microseconds, as on the chip.
// A block whose enabled machines all wait on an empty TX FIFO is not stepped at all.
const pioNanos = [0, 0];
const pioParked = [false, false];
const pioActive = [false, false];
for (const [i, pio] of mcu.pio.entries()) {
  pio.run = () => { pioActive[i] = true; pioNanos[i] = clock.nanos; pioSchedule(i); };
  const stop = pio.stop.bind(pio);
  pio.stop = () => { stop(); pioActive[i] = false; pioSchedule(i); };
  for (const m of pio.machines) {
    const step = m.step.bind(m);
    let delayLeft = 0;
    m.step = () => {
      if (!m.enabled) return;
      if (delayLeft > 0) { delayLeft--; return; }
      const c0 = m.cycles;
      step();
      const spent = m.cycles - c0;
      if (spent > 1) delayLeft = spent - 1;
    };
    m.restartDelay = () => { delayLeft = 0; };
  }
  const write = pio.writeUint32.bind(pio);
  pio.writeUint32 = (offset, value) => {
    write(offset, value);
    if (pioParked[i]) { pioParked[i] = false; pioNanos[i] = clock.nanos; }
    pioSchedule(i); // a FIFO write or a new divider: step again from now
    if (offset === 0) { // CTRL: enabling/restarting machines
      pioActive[i] = !pio.stopped;
      pioParked[i] = false;
      pioNanos[i] = clock.nanos;
      pioSchedule(i);
      if (value & 0xf0) { ledSm = null; resetDecoder('restart'); }
    }
  };
}
function pioStepNanos(pio) {
  for (const m of pio.machines) {
    if (m.enabled) return (1e9 / 125e6) * Math.max(1, m.clockDivInt + m.clockDivFrac / 256);
  }
  return 8;
}
function pioIdle(pio) {
  for (const m of pio.machines) {
    if (m.enabled && !(m.waiting && m.txFIFO.empty && (m.waitType === 5 || m.waitType === 3))) return false;
  }
  return true;
}
// When each block's next step is due (emulated ns); Infinity while it is not running.
const pioDue = [Infinity, Infinity];
function pioSchedule(i) {
  pioDue[i] = pioActive[i] && !pioParked[i] ? pioNanos[i] + pioStepNanos(mcu.pio[i]) : Infinity;
}
function advancePio() {
  const now = clock.nanos;
  if (now < pioDue[0] && now < pioDue[1]) return;
  for (let i = 0; i < 2; i++) {
    if (now < pioDue[i]) continue;
    const pio = mcu.pio[i];
    // Every enabled machine waits on an empty TX FIFO: park until something writes.
    if (pioIdle(pio)) { pioParked[i] = true; pioNanos[i] = now; pioSchedule(i); continue; }
    const stepNs = pioStepNanos(pio);
    let k = 0;
    while (pioNanos[i] + stepNs <= now && k < 100000) {
      pio.step();
      pioNanos[i] += stepNs;
      k++;
    }
    pioSchedule(i);
  }
}
const pioBusy = () => pioDue[0] !== Infinity || pioDue[1] !== Infinity;

// -- USB CDC ------------------------------------------------------------------------------
const cdc = new USBCDC(mcu.usbCtrl);
const pendingIn = []; // host -> device bytes not yet in the 512-byte FIFO
let pendingRead = null;
let connected = false;
cdc.onDeviceConnected = () => { connected = true; out('U'); feed(); };
cdc.onSerialData = (bytes) => { out('D ' + Buffer.from(bytes).toString('hex')); };
const stockRead = mcu.usbCtrl.onEndpointRead;
// Held reads: answer the device's OUT request only when the host has bytes, as a real
// host NAKs; stock USBCDC answers at once with nothing, and TinyUSB re-arms in a loop.
mcu.usbCtrl.onEndpointRead = (endpoint, size) => {
  if (endpoint === cdc.outEndpoint && cdc.txFIFO.empty) { pendingRead = [endpoint, size]; return; }
  stockRead(endpoint, size);
};
function feed() {
  while (pendingIn.length && cdc.txFIFO.itemCount < 500) cdc.sendSerialByte(pendingIn.shift());
  if (pendingRead && !cdc.txFIFO.empty) {
    const [e, s] = pendingRead;
    pendingRead = null;
    stockRead(e, s);
  }
}
// A host that holds the port open but stops reading: IN transfers are not completed.
let hostStalled = false;
const heldIn = [];
const ready = mcu.usbCtrl.indicateBufferReady.bind(mcu.usbCtrl);
mcu.usbCtrl.indicateBufferReady = (endpoint, outDir) => {
  if (!outDir && hostStalled && endpoint === cdc.inEndpoint && endpoint > 0) { heldIn.push(endpoint); return; }
  ready(endpoint, outDir);
};
// A test can let the firmware side decide when the host stops reading: while the
// board model's "stall_pin" is driven high, the host reads nothing (in emulated time,
// so the test does not race the emulator).
if (BOARD.stall_pin != null) {
  gpio[BOARD.stall_pin].addListener((state) => {
    const stall = state === GPIOPinState.High;
    if (stall === hostStalled) return;
    hostStalled = stall;
    if (!stall) while (heldIn.length) ready(heldIn.shift(), false);
  });
}

// -- busy waits, fast-forwarded ---------------------------------------------------------------
// MicroPython's sleep_us (the scan's settle time) polls the timer in a tight loop; at
// 40 to 60 million emulated cycles a wall second that poll is most of the work. When the
// timer is read again and again a few hundred cycles apart, each further read moves the
// emulated clock on by FAST_NS: the wait still lasts its emulated microseconds (every
// ticks_us figure stays true), the host just spends fewer cycles on it. --exact-waits
// turns this off.
const FAST_NS = 2000;
if (!argv.includes('--exact-waits')) {
  const timer = mcu.findPeripheral(0x40054000);
  const timerRead = timer.readUint32.bind(timer);
  let lastRead = -1e9;
  let streak = 0;
  timer.readUint32 = (offset) => {
    if (offset === 0x28 || offset === 0x24 || offset === 0x0c || offset === 0x08) {
      const c = mcu.core.cycles;
      if (c - lastRead < 300) {
        if (++streak > 16) clock.tick(FAST_NS);
      } else {
        streak = 0;
      }
      lastRead = c;
    }
    return timerRead(offset);
  };
}

// machine.reset() (the watchdog's trigger): rp2040js would reset the core and erase the
// flash. Save the filesystem, say R and exit: the host starts a new emulator from it.
mcu.findPeripheral(0x40058000).onWatchdogTrigger = () => { out('R'); quit(0); };

// -- bounces on the emulated clock -----------------------------------------------------------
function setSwitch(pos, v) {
  if (pos < 0 || pos >= closed.length) { out(`E switch ${pos} outside 0..${closed.length - 1}`); return; }
  closed[pos] = v ? 1 : 0;
  resolve();
}
function bounce(pos, n, us, final) {
  let left = n;
  const alarm = clock.createAlarm(() => {
    if (left > 0) {
      setSwitch(pos, closed[pos] ? 0 : 1);
      left--;
      alarm.schedule(us * 1000);
    } else {
      setSwitch(pos, final);
    }
  });
  alarm.schedule(0);
}

// -- the run loop, paced to wall time ---------------------------------------------------------
let wallBase = performance.now();
let nanosBase = 0;
let stopped = false;
const cycleNanos = 1e9 / 125e6;
const PROFILE = argv.includes('--profile');
const readHist = new Map();
if (PROFILE) {
  const r32 = mcu.readUint32.bind(mcu);
  mcu.readUint32 = (a) => { a >>>= 0; if (a >= 0x40000000) { const k = (a.toString(16)) + '@' + (mcu.core.PC >>> 0).toString(16); readHist.set(k, (readHist.get(k) || 0) + 1); } return r32(a); };
}
const pcHist = new Map();
let waitCount = 0;
function runChunk() {
  if (stopped) return;
  const wallNs = (performance.now() - wallBase) * 1e6;
  let target = nanosBase + wallNs;
  if (clock.nanos < target - MAX_LAG_NS) {
    // Busy: emulation is slower than real time. Forgive the lag beyond MAX_LAG_NS.
    nanosBase = clock.nanos + MAX_LAG_NS - wallNs;
    target = nanosBase + wallNs;
  }
  const until = Math.min(target, clock.nanos + CHUNK_NS);
  const core = mcu.core;
  let n = 0;
  while (clock.nanos < until && n < 200000) {
    if (core.waiting) {
      waitCount++;
      let next = clock.nanosToNextAlarm;
      if (pioBusy()) next = Math.min(next > 0 ? next : 2000, 2000); // PIO and DMA keep pace
      if (next <= 0 || clock.nanos + next > until) { clock.tick(until - clock.nanos); advancePio(); break; }
      clock.tick(next);
      advancePio();
    } else {
      if ((n & 1023) === 0 && PROFILE) { const pc = core.PC >>> 0; pcHist.set(pc, (pcHist.get(pc) || 0) + 1); }
      clock.tick(core.executeInstruction() * cycleNanos);
      advancePio();
      n++;
    }
  }
  if (clock.nanos >= target) {
    setTimeout(runChunk, Math.max(1, Math.ceil((clock.nanos - target) / 1e6)));
  } else {
    setImmediate(runChunk);
  }
}

function status() {
  return {
    emulated_s: clock.nanos / 1e9,
    cycles: mcu.core.cycles,
    frames,
    usb_connected: connected,
    pulse_sm_cycles: pulseHist,
    flash: flashStats,
    host_stalled: hostStalled,
    held_in: heldIn.length,
    waits: waitCount,
    ssi_trace: ssiTrace,
    core: { pc: (mcu.core.PC >>> 0).toString(16), lr: (mcu.core.LR >>> 0).toString(16), sp: (mcu.core.SP >>> 0).toString(16), waiting: mcu.core.waiting, primask: mcu.core.PM, ipsr: mcu.core.IPSR },
    pio_debug: mcu.pio.map((pio, i) => ({ active: pioActive[i], stopped: pio.stopped, idle: pioIdle(pio), machines: pio.machines.map((m) => [m.enabled, m.waiting, m.waitType, m.txFIFO.itemCount, m.pc, m.cycles]) })),
    led_pin_function: ledPin != null ? gpio[ledPin].functionSelect : null,
    bits_pending: bitCount,
    hot_reads: PROFILE ? [...readHist.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12) : undefined,
    hot_pcs: PROFILE ? [...pcHist.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([pc, k]) => [pc.toString(16), k]) : undefined,
  };
}

function quit(code) {
  stopped = true;
  for (const pio of mcu.pio) pio.stop();
  if (FS_IMAGE) {
    try { writeFileSync(FS_IMAGE, mcu.flash.subarray(FS_OFFSET, FS_OFFSET + FS_SIZE)); } catch (e) { out(`E saving ${FS_IMAGE}: ${e.message}`); }
  }
  process.exit(code);
}

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const w = line.trim().split(' ');
  try {
    switch (w[0]) {
      case 'W': pendingIn.push(...Buffer.from(w[1] || '', 'hex')); feed(); break;
      case 'S': setSwitch(Number(w[1]), w[2] === '1'); break;
      case 'D': noDiode[Number(w[1])] = w[2] === '1' ? 0 : 1; resolve(); break;
      case 'B': bounce(Number(w[1]), Number(w[2]), Number(w[3]), w[4] === '1' ? 1 : 0); break;
      case 'H':
        hostStalled = w[1] === '1';
        if (!hostStalled) while (heldIn.length) ready(heldIn.shift(), false);
        break;
      case 'T': out('T ' + JSON.stringify(status())); break;
      case 'Q': quit(0); break;
      case '': break;
      default: out(`E unknown command ${JSON.stringify(w[0])}`);
    }
  } catch (e) {
    out(`E ${w[0]}: ${e.message}`);
  }
});
rl.on('close', () => quit(0));
setInterval(feed, 5); // the 512-byte FIFO drains as the device reads: top it up

resolve();
mcu.core.PC = FLASH_START; // boot2 at the start of flash, like rp2040js's own demo
wallBase = performance.now();
runChunk();
