// What both pages share (common.js): Python's number formats to the digit, its repr, the numbers a person
// types, the typed arrays the pages embed, the tuple heap -- against tests/data/planner/common.json (Python's own).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { golden, load } = require("./harness.cjs");

const G = golden("common.json");
const C = load(["common.js"]).EidomapCommon;
const number = (x) => (typeof x === "string" ? Number(x.replace("inf", "Infinity")) : x);

test("fixed, sci and g write every number as Python's format does", () => {
  for (const f of G.formats) {
    const x = number(f.x);
    for (let p = 0; p < 7; p++) {
      assert.equal(C.fixed(x, p), f.fixed[p], `format(${f.x}, ".${p}f")`);
      assert.equal(C.sci(x, p), f.sci[p], `format(${f.x}, ".${p}e")`);
    }
    assert.equal(C.g(x), f.g, `format(${f.x}, "g")`);
    assert.equal(C.g(x, 10, true), f.g10, `format(${f.x}, ",.10g")`);
  }
});

test("repr quotes a text as Python's repr does", () => {
  for (const r of G.reprs) assert.equal(C.repr(r.text), r.repr, JSON.stringify(r.text));
  assert.equal(C.repr(["a", 3, null, true, false]), "['a', 3, None, True, False]");
  assert.equal(C.repr(undefined), "None");
  assert.equal(C.repr(2.5), "2.5");
});

test("a number typed is read as eidomap reads it: at most 12 digits 0-9", () => {
  for (const w of G.wholes) assert.equal(C.whole(w.text), w.value, JSON.stringify(w.text));
  assert.ok(Object.is(C.whole("-0"), 0));
});

test("plural, isInt", () => {
  assert.equal(C.plural(1, "step"), "1 step");
  assert.equal(C.plural(0, "step"), "0 steps");
  assert.equal(C.plural(2, "round"), "2 rounds");
  assert.deepEqual([3, 3.5, "3", true, NaN, Infinity].map(C.isInt), [true, false, false, false, false, false]);
});

test("an embedded array is read back, little-endian, in its type", () => {
  const b64 = (bytes) => Buffer.from(bytes).toString("base64");
  assert.deepEqual(Array.from(C.array({ dtype: "i32", b64: b64([1, 0, 0, 0, 255, 255, 255, 255]) })), [1, -1]);
  assert.deepEqual(Array.from(C.array({ dtype: "u16", b64: b64([1, 2, 255, 255]) })), [513, 65535]);
  assert.deepEqual(Array.from(C.array({ dtype: "u8", b64: b64([7, 200]) })), [7, 200]);
  assert.deepEqual(Array.from(C.array({ dtype: "f64", b64: b64([0, 0, 0, 0, 0, 0, 0xf8, 0x3f]) })), [1.5]);
});

test("the tuple heap gives its items in Python's tuple order", () => {
  const h = new C.TupleHeap();
  const items = [[3, 1], [1, 9], [2, 5], [1, 2], [3, 0], [2, 5, 1], [0, 0], [5], [1, 2]];
  for (const item of items) h.push(item);
  assert.equal(h.size, items.length);
  const out = [];
  while (h.size) out.push(h.pop());
  assert.deepEqual(out, [[0, 0], [1, 2], [1, 2], [1, 9], [2, 5], [2, 5, 1], [3, 0], [3, 1], [5]]);
  const seeded = [];  // a longer run, against a sort
  let s = 7;
  for (let i = 0; i < 200; i++) {
    s = (s * 48271) % 2147483647;
    seeded.push([s % 13, (s >> 4) % 7]);
    h.push(seeded[i]);
  }
  const sorted = seeded.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const want of sorted) assert.deepEqual(h.pop(), want);
});

test("a request's error is an Error named RequestError", () => {
  const e = new C.RequestError("no");
  assert.equal(Object.getPrototypeOf(C.RequestError.prototype).constructor.name, "Error");
  assert.equal(e.name, "RequestError");
  assert.equal(e.message, "no");
});
