// What the planner pages share: the embedded arrays, Python's number formats, errors, a tuple heap.
// Plain JavaScript, no dependency: the page works from file:// with no network.
"use strict";

var EidomapCommon = (function () {
  /** An error of the request (eidomap's RequestError): the page shows its message. */
  class RequestError extends Error {
    constructor(message) {
      super(message);
      this.name = "RequestError";
    }
  }

  const TYPES = { u8: Uint8Array, u16: Uint16Array, i32: Int32Array, f64: Float64Array };

  /** A typed array from its embedded form: {"dtype": "i32", "b64": "..."} (little-endian bytes). */
  function array(spec) {
    const text = atob(spec.b64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return new TYPES[spec.dtype](bytes.buffer);
  }

  // -- Python's formats, to the digit: exact decimal expansion of the double, ties to even --------
  function bits(x) {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    const hi = view.getUint32(0), lo = view.getUint32(4);
    const exp = (hi >>> 20) & 0x7ff;
    let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
    if (exp) mant |= 1n << 52n;
    return [mant, (exp || 1) - 1075];  // x = mant * 2 ** e
  }

  /** round(|x| * 10 ** shift) to an integer, half to even, computed exactly (a BigInt). */
  function scaled(x, shift) {
    const [mant, e] = bits(Math.abs(x));
    let num = mant, den = 1n;
    if (e >= 0) num <<= BigInt(e); else den <<= BigInt(-e);
    if (shift >= 0) num *= 10n ** BigInt(shift); else den *= 10n ** BigInt(-shift);
    const q = num / den, r2 = 2n * (num % den);
    return r2 > den || (r2 === den && q % 2n === 1n) ? q + 1n : q;
  }

  function special(x) {
    if (Number.isNaN(x)) return "nan";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    return null;
  }

  function sign(x) {
    return x < 0 || Object.is(x, -0) ? "-" : "";
  }

  /** Python's format(x, ".{digits}f"). */
  function fixed(x, digits) {
    const s = special(x);
    if (s !== null) return s;
    let t = scaled(x, digits).toString();
    if (digits > 0) {
      t = t.padStart(digits + 1, "0");
      t = t.slice(0, t.length - digits) + "." + t.slice(t.length - digits);
    }
    return sign(x) + t;
  }

  /** The p significant digits of |x| > 0 and the decimal exponent of the first. */
  function significant(x, p) {
    let e = Math.floor(Math.log10(Math.abs(x)));
    for (;;) {
      const q = scaled(x, p - 1 - e);
      if (q >= 10n ** BigInt(p)) e += 1;
      else if (q < 10n ** BigInt(p - 1)) e -= 1;
      else return [q.toString(), e];
    }
  }

  function exponent(e) {
    return (e < 0 ? "-" : "+") + String(Math.abs(e)).padStart(2, "0");
  }

  /** Python's format(x, ".{p}e"). */
  function sci(x, p) {
    const s = special(x);
    if (s !== null) return s;
    if (x === 0) return sign(x) + (p ? "0." + "0".repeat(p) : "0") + "e+00";
    const [digits, e] = significant(x, p + 1);
    return sign(x) + digits[0] + (p ? "." + digits.slice(1) : "") + "e" + exponent(e);
  }

  /** Python's format(x, ".{p}g"), with ``group`` the integer part's thousands separated by commas (",.{p}g"). */
  function g(x, p = 6, group = false) {
    const s = special(x);
    if (s !== null) return s;
    if (x === 0) return sign(x) + "0";
    const [digits, e] = significant(x, p);
    const trim = (t) => (t.includes(".") ? t.replace(/0+$/, "").replace(/\.$/, "") : t);
    if (e >= -4 && e < p) {
      let t;
      if (e >= 0) t = digits.slice(0, e + 1) + "." + digits.slice(e + 1);
      else t = "0." + "0".repeat(-e - 1) + digits;
      t = trim(t);
      return sign(x) + (group ? t.replace(/^\d+/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ",")) : t);
    }
    return sign(x) + trim(digits[0] + "." + digits.slice(1)) + "e" + exponent(e);
  }

  /** ``"1 step"``, ``"3 steps"``. */
  function plural(n, word) {
    return `${n} ${word}${n === 1 ? "" : "s"}`;
  }

  // what Python's repr escapes: the characters str.isprintable calls unprintable (Other and Separator, but space)
  const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
  const ESCAPES = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

  /** Python's repr of a string (its quotes and escapes), a list or a number, as error messages quote what they
   * were given. */
  function repr(v) {
    if (typeof v === "string") {
      const quote = v.includes("'") && !v.includes('"') ? '"' : "'";
      let out = quote;
      for (const ch of v) {
        const code = ch.codePointAt(0);
        if (ch === quote) out += "\\" + ch;
        else if (Object.hasOwn(ESCAPES, ch)) out += ESCAPES[ch];
        else if (ch !== " " && UNPRINTABLE.test(ch)) {
          const [mark, width] = code <= 0xff ? ["x", 2] : code <= 0xffff ? ["u", 4] : ["U", 8];
          out += "\\" + mark + code.toString(16).padStart(width, "0");
        } else out += ch;
      }
      return out + quote;
    }
    if (v === null || v === undefined) return "None";
    if (typeof v === "boolean") return v ? "True" : "False";
    if (Array.isArray(v)) return "[" + v.map(repr).join(", ") + "]";
    return String(v);
  }

  // a number a person types: the digits 0-9 (no other script's), a sign, ASCII blanks around (base.params.read_whole)
  const WHOLE = /^[ \t\n\r\f\v]*([+-]?)([0-9]+)[ \t\n\r\f\v]*$/;
  const MAX_DIGITS = 12;

  /** A whole number as a person writes it (at most 12 digits 0-9, a sign, ASCII blanks around), or null. */
  function whole(text) {
    const m = WHOLE.exec(text);
    return m && m[2].length <= MAX_DIGITS ? Number(m[1] + m[2]) || 0 : null;  // (-0: 0)
  }

  /** Is ``v`` a whole number (not a boolean)? */
  function isInt(v) {
    return typeof v === "number" && Number.isInteger(v);
  }

  /** A binary heap of arrays compared element by element (Python's heapq of tuples). */
  class TupleHeap {
    constructor() {
      this.items = [];
    }

    get size() {
      return this.items.length;
    }

    static less(a, b) {
      for (let i = 0; i < a.length; i++) {
        if (a[i] < b[i]) return true;
        if (a[i] > b[i]) return false;
      }
      return false;
    }

    push(item) {
      const h = this.items;
      h.push(item);
      let i = h.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!TupleHeap.less(h[i], h[parent])) break;
        [h[i], h[parent]] = [h[parent], h[i]];
        i = parent;
      }
    }

    pop() {
      const h = this.items;
      const top = h[0];
      const last = h.pop();
      if (h.length) {
        h[0] = last;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1, r = l + 1;
          let m = i;
          if (l < h.length && TupleHeap.less(h[l], h[m])) m = l;
          if (r < h.length && TupleHeap.less(h[r], h[m])) m = r;
          if (m === i) break;
          [h[i], h[m]] = [h[m], h[i]];
          i = m;
        }
      }
      return top;
    }
  }


  /**
   * ``eidomap.answers.analysis.race``: P(first) of each actor and P(a tie for first), from each one's P(arrived by
   * turn k) (``p[k - 1]``, as a route's ``p_by_turn``).  The actors roll independently; a distribution shorter
   * than the others goes on at its last value (one that never arrives: []), and past the longest one an actor that
   * has not arrived never does.  An actor is first when it arrives in some turn and every other later or never; a
   * tie is the earliest arrival turn shared by two or more.  Per turn, P(exactly m arrive in it and the rest
   * later) are the coefficients of the product over the actors of ``P(later) + P(in it) x``: sums of products, no
   * difference of nearly equal numbers.
   *
   * @param {number[][]} dists each actor's P(arrived by turn k), k = 1, 2, ...
   * @returns {{first: number[], tie: number}} P(each actor first), in the order given, and P(a tie)
   */
  function race(dists) {
    const n = dists.reduce((most, p) => Math.max(most, p.length), 0), actors = dists.length;
    const now = [], later = [];  // P(arrives in turn k), P(after turn k or never), k = 1..n
    for (const p of dists) {
      const by = (k) => (k === 0 || !p.length ? 0 : p[Math.min(k, p.length) - 1]);
      now.push(Float64Array.from({ length: n }, (_, k) => by(k + 1) - by(k)));
      later.push(Float64Array.from({ length: n }, (_, k) => 1 - by(k + 1)));
    }
    const first = dists.map((_, i) => {
      let sum = 0;
      for (let k = 0; k < n; k++) {
        let others = 1;
        for (let j = 0; j < actors; j++) if (j !== i) others *= later[j][k];
        sum += now[i][k] * others;
      }
      return sum;
    });
    // exactly[m][k]: P(exactly m of the actors so far arrive in turn k and the others later)
    const exactly = Array.from({ length: actors + 1 }, (_, m) => new Float64Array(n).fill(m === 0 ? 1 : 0));
    for (let i = 0; i < actors; i++) {
      for (let k = 0; k < n; k++) {
        for (let m = i + 1; m >= 1; m--) exactly[m][k] = exactly[m][k] * later[i][k] + exactly[m - 1][k] * now[i][k];
        exactly[0][k] *= later[i][k];
      }
    }
    let tie = 0;
    for (let k = 0; k < n; k++) {
      let shared = 0;
      for (let m = 2; m <= actors; m++) shared += exactly[m][k];
      tie += shared;
    }
    return { first, tie };
  }

  /**
   * ``race`` of the actors' routes, as ``analysis.race`` reads a ``Route``: one already at the goal (reachable, no
   * turn -- an empty ``p_by_turn``, as one that cannot arrive has) arrives before any turn, so a turn 0 comes before
   * the others' first and it arrives in it.
   *
   * @param {{reachable: boolean, p_by_turn: number[]}[]} routes each actor's route (a refused one: not reachable)
   * @returns {{first: number[], tie: number}} as ``race``
   */
  function raceRoutes(routes) {
    const there = routes.map((r) => r.reachable && r.p_by_turn.length === 0);
    return race(routes.map((r, i) => (!r.reachable ? [] : !there.includes(true) ? Array.from(r.p_by_turn)
      : there[i] ? [1] : [0, ...r.p_by_turn])));
  }

  return { RequestError, array, fixed, sci, g, plural, repr, whole, isInt, TupleHeap, MAX_DIGITS, race, raceRoutes };
})();
