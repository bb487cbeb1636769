'use strict';
// Human pace for the peers harness's load generator (issue #34: capacity at human pace).
//
//   node think.js LOADGEN_JS [loadgen.js's options] [--think-seed S] [--think-min 1]
//                 [--think-max 4]
//   node think.js --think-sample N [--think-seed S] [--think-min 1] [--think-max 4]
//
// Runs the harness's loadgen.js (not edited: it is shared) with its pacing replaced: a seat
// whose turn it is thinks for a random time drawn uniformly from [--think-min, --think-max]
// seconds (default 1-4 s, mean 2.5 s), then acts. Only one seat of a four-seat Skipper table
// acts at a time, so a table acts once per think time plus a round trip. Each table draws
// its think times from its own stream (mulberry32, loadgen.js's generator), seeded by
// --think-seed and the table's ordinal (the order in which tables first get to act), so a
// seed gives the same think times run after run. --rate is ignored and every phase is paced
// so (the "throughput" phase too: a capacity run measures only the paced one); pass
// --warmup 4 so every table is thinking in its own rhythm when the measurement starts.
//
// --think-sample N prints, as one JSON object, the first N think times (s) of tables 0-3 of
// that seed and exits (no server needed): what the tests check.

const fs = require('fs');
const path = require('path');
const Module = require('module');

function arg(name, dflt) {
  const i = process.argv.indexOf('--' + name);
  return i >= 0 ? process.argv[i + 1] : dflt;
}
const SEED = Number(arg('think-seed', '1'));
const LO = Number(arg('think-min', '1'));
const HI = Number(arg('think-max', '4'));
if (!(LO > 0 && HI >= LO) || !Number.isInteger(SEED)) {
  console.error('think.js: need 0 < --think-min <= --think-max and an integer --think-seed');
  process.exit(2);
}

/** mulberry32 (as loadgen.js): a uniform [0, 1) stream from a 32-bit seed. */
function mulberry32(a) {
  return function () {
    a |= 0; a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Think times (s) of table `ordinal` under `seed`: a function giving the next one. */
function thinkStream(seed, ordinal) {
  const u = mulberry32((Math.imul(seed, 0x9E3779B1) + Math.imul(ordinal + 1, 0x85EBCA77)) | 0);
  return () => LO + (HI - LO) * u();
}

const sample = Number(arg('think-sample', '0'));
if (sample > 0) {
  const tables = [0, 1, 2, 3].map((k) => {
    const next = thinkStream(SEED, k);
    return Array.from({ length: sample }, next);
  });
  process.stdout.write(JSON.stringify({ seed: SEED, min: LO, max: HI, tables }) + '\n');
  process.exit(0);
}

const file = path.resolve(process.argv[2] || '');
if (!process.argv[2] || !fs.existsSync(file)) {
  console.error('usage: node think.js LOADGEN_JS [options] (or --think-sample N)');
  process.exit(2);
}
const streams = new Map();   // table -> its think-time stream
/** The next think time (s) of table `tb` (its stream made when it first asks). */
function thinkOf(tb) {
  let next = streams.get(tb);
  if (next === undefined) { next = thinkStream(SEED, streams.size); streams.set(tb, next); }
  return next();
}

// Replaces loadgen.js's Load pacing (a fixed interval per table) by think times. Load,
// now() and the pause logic are loadgen.js's own; only when a held action goes is changed.
const PATCH = `
;(function thinkTimes(thinkOf) {
  Load.prototype.pace = function () { this.interval = 1; };   // always paced, by thinking
  Load.prototype.sent = function () {};
  Load.prototype.resume = function () {
    this.go = true;
    const held = [...this.waiting];
    this.waiting.clear();
    for (const tb of held) this.ready(tb, tb.heldFn);
  };
  Load.prototype.ready = function (tb, fn) {
    if (!this.running) return;
    if (!this.go) { tb.heldFn = fn; this.waiting.add(tb); return; }
    setTimeout(() => {
      if (!this.go) { tb.heldFn = fn; this.waiting.add(tb); return; }
      fn();
    }, thinkOf(tb) * 1000);
  };
})(module.thinkOf);
`;
const ANCHOR = '\nmain().catch(';
const source = fs.readFileSync(file, 'utf8');
if (!source.includes(ANCHOR) || !/\nclass Load \{/.test(source)) {
  console.error(`think.js: ${file} has no 'class Load' or no main() call: loadgen.js changed`);
  process.exit(2);
}
const loadgen = new Module(file, module);
loadgen.filename = file;
loadgen.paths = Module._nodeModulePaths(path.dirname(file));
loadgen.thinkOf = thinkOf;
process.argv.splice(2, 1);   // loadgen.js reads its own options from process.argv
loadgen._compile(source.replace(ANCHOR, '\n' + PATCH + ANCHOR), file);
