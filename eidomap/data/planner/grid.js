// The d20 battle grid in the page: eidomap's d20 reach and route, ported from its Python searches.
//
// eidomap/answers/grid.py, eidomap/search/grid.py and eidomap/rules/d20/grid.py, function for function
// (the bucket queues' orders too, so that a route is the very squares eidomap gives): counted in
// squares of 5 ft, diagonals 1-2-1, the round's budget, the full-round 5-ft move.
"use strict";

var GridPlanner = (function (C) {
  const { RequestError, repr, isInt } = C;
  const FEET = 5, MAX_SPEED = 1000, CHARGE_MIN = 2;
  const MODES = { move: 1, double: 2, run: 4, charge: 2, step: 0 };
  const FIVE_FOOT_STEP = "5-ft step", MOVE = "move", DOUBLE_MOVE = "double move", RUN = "run";
  const FULL_ROUND = "full-round 5 ft";
  const DIRECTIONS = [[-1, 0], [1, 0], [0, -1], [0, 1], [-1, -1], [-1, 1], [1, -1], [1, 1]];
  const DIFFICULT = 1, OBSTACLE = 2, POOR_VISIBILITY = 4, IMPASSABLE = 8;
  const NOBODY = 0, ALLY = 1, ENEMY = 2;
  // label columns and kinds (search/grid.py)
  const T = 0, LEFT = 1, SPENT = 2, NODE = 3, PRED = 4, KIND = 5, DEAD = 6, BNEXT = 7, NNEXT = 8, LAYER = 9;
  const COLUMNS = 10;
  const STEP = 0, WAIT = 1, FULL = 2, START = 3, LINE = 4;
  const NONE = Number.MAX_SAFE_INTEGER, NO_ROUND = 2147483647;
  // a route through stops (answers/grid.py MAX_STOPS, search/grid.py MAX_LAYERED_SQUARES)
  const MAX_STOPS = 100, MAX_LAYERED_SQUARES = 16000000;

  function square(sq) {
    return `${sq[0]},${sq[1]}`;
  }

  /** rules.d20.squares.parse_square, and [r, c] as it is. */
  function parseSquare(v, what) {
    if (Array.isArray(v) && v.length === 2 && v.every(isInt)) return [v[0], v[1]];
    const parts = String(v).split(",").map(C.whole);  // the digits 0-9, as rules.d20.squares reads a square
    if (parts.length === 2 && !parts.includes(null)) return parts;
    throw new RequestError(`${what} must be R,C (row,column from 0 at the top left), got ${repr(String(v))}`);
  }

  function parseSquares(v, what) {
    if (v === undefined || v === null) return [];
    if (typeof v === "string") return v.split(";").filter((p) => p.trim()).map((p) => parseSquare(p, what));
    return Array.from(v, (p) => parseSquare(p, what));
  }

  // -- who moves (rules.d20.tactical.Mover) --------------------------------------------------------
  class Mover {
    constructor(speed, mode = "move", heavyArmor = false, flying = false, fatigued = false) {
      if (!isInt(speed) || !(speed > 0 && speed <= MAX_SPEED) || speed % FEET) {
        throw new RequestError(`speed must be a multiple of 5 ft from 5 to ${MAX_SPEED}, got ${repr(speed)}`);
      }
      if (!Object.hasOwn(MODES, mode)) {  // (the words as eidomap.base.params.one_of says them)
        const words = Object.keys(MODES).map((k) => `'${k}'`);
        throw new RequestError(`mode must be ${words.slice(0, -1).join(", ")} or ${words.at(-1)}, got ${repr(mode)}`);
      }
      Object.assign(this, { speed, mode, heavyArmor, flying, fatigued });
      if (fatigued && this.straight) {
        throw new RequestError(`a fatigued character can neither run nor charge (mode ${repr(mode)}): choose move or double`);
      }
    }

    get squares() {
      return Math.floor(this.speed / FEET);
    }

    get budget() {
      if (this.mode === "step") return 1;
      return (this.mode === "run" && this.heavyArmor ? 3 : MODES[this.mode]) * this.squares;
    }

    /** The mode as the answer says it: a run in heavy armour is at three times the speed (cli/d20_tactical.py). */
    get said() {
      return this.mode === "run" && this.heavyArmor ? "run x3" : this.mode;
    }

    get straight() {
      return this.mode === "run" || this.mode === "charge";
    }

    get stepBudget() {
      return this.mode === "run" ? 2 * this.squares : this.budget;
    }

    action(squares, clearStep, fullRound) {
      if (fullRound) return FULL_ROUND;
      if (clearStep && this.squares > 1) return FIVE_FOOT_STEP;
      if (squares <= this.squares) return MOVE;
      return squares <= 2 * this.squares ? DOUBLE_MOVE : RUN;
    }
  }

  // -- steps and lines (rules.d20.tactical) ----------------------------------------------------------
  function offsets(cols) {
    return DIRECTIONS.map(([dr, dc]) => dr * cols + dc);
  }

  /** step_cost: [squares, parity after] of a step into square v in direction k. */
  function stepCost(mult, v, parity, k) {
    const m = mult[v];
    if (k < 4) return [m, parity];
    if (m === 1) return [1 + parity, 1 - parity];
    return [Math.floor((3 * m) / 2), parity];
  }

  function lineSquare(i, dr, dc, major) {
    const r = Math.floor((2 * i * Math.abs(dr) + major) / (2 * major));
    const c = Math.floor((2 * i * Math.abs(dc) + major) / (2 * major));
    return [dr >= 0 ? r : -r, dc >= 0 ? c : -c];
  }

  function line(dr, dc) {
    const major = Math.max(Math.abs(dr), Math.abs(dc));
    const out = [];
    for (let i = 1; i <= major; i++) out.push(lineSquare(i, dr, dc, major));
    return out;
  }

  function lineCost(dr, dc) {
    const a = Math.abs(dr), b = Math.abs(dc);
    return Math.max(a, b) + Math.floor(Math.min(a, b) / 2);
  }

  // -- the grid (rules.d20.squares.Grid) -------------------------------------------------------------
  class Grid {
    constructor(flags, occupant, rows, cols, source, rowLines) {
      Object.assign(this, { flags, occupant, rows, cols, source, rowLines });
    }

    where(sq) {
      const [r, c] = sq;
      if (r >= 0 && r < this.rowLines.length) return `${this.source}:${this.rowLines[r]}:${c + 1}`;
      return `${this.source}: square ${square(sq)}`;
    }

    check(sq, what) {
      const [r, c] = sq;
      if (!(r >= 0 && r < this.rows && c >= 0 && c < this.cols)) {
        throw new RequestError(`${this.source}: ${what} ${square(sq)} is outside the grid (${this.rows} rows x ${this.cols} columns)`);
      }
      return sq;
    }

    at(sq) {
      return sq[0] * this.cols + sq[1];
    }

    withOccupants(allies, enemies) {
      const occ = this.occupant.slice();
      for (const [squares, who, what] of [[allies, ALLY, "ally"], [enemies, ENEMY, "blocked square"]]) {
        for (const sq of squares) {
          this.check(sq, what);
          if (this.flags[this.at(sq)] & IMPASSABLE) {
            throw new RequestError(`${this.where(sq)}: ${what} ${square(sq)} is impassable; no creature stands there`);
          }
          occ[this.at(sq)] = who;
        }
      }
      return new Grid(this.flags, occ, this.rows, this.cols, this.source, this.rowLines);
    }

    /** grid_arrays: mult, enterable, can_end, occupant (per square, flat). */
    arrays(flying) {
      const n = this.rows * this.cols;
      const byFlag = new Int32Array(256);
      for (let f = 0; f < 256; f++) {
        let count = 0;
        for (const h of [DIFFICULT, OBSTACLE, POOR_VISIBILITY]) if (!(flying && h === DIFFICULT) && f & h) count++;
        byFlag[f] = f & IMPASSABLE ? 0 : 1 << count;
      }
      const mult = new Int32Array(n), enterable = new Uint8Array(n), canEnd = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        mult[i] = byFlag[this.flags[i]];
        enterable[i] = mult[i] !== 0 && this.occupant[i] !== ENEMY ? 1 : 0;
        canEnd[i] = this.occupant[i] === NOBODY && mult[i] !== 0 ? 1 : 0;
      }
      return { mult, enterable, canEnd, occupant: this.occupant };
    }
  }

  /** step_masks: per square, bit k set when a step in direction k may be taken from it. */
  function stepMasks(mult, enterable, rows, cols) {
    const out = new Uint8Array(rows * cols);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const s = r * cols + c;
        if (mult[s] === 0) continue;
        let bitsOut = 0;
        for (let k = 0; k < 8; k++) {
          const [dr, dc] = DIRECTIONS[k];
          const rr = r + dr, cc = c + dc;
          if (rr < 0 || rr >= rows || cc < 0 || cc >= cols || !enterable[rr * cols + cc]) continue;
          if (dr && dc && (mult[r * cols + cc] === 0 || mult[rr * cols + c] === 0)) continue;
          bitsOut |= 1 << k;
        }
        out[s] = bitsOut;
      }
    }
    return out;
  }

  // -- bucket queue: a pool, stale entries skipped (search/grid.py keeps Dial's lists) ---------------
  class Ring {
    constructor(size) {
      this.ring = new Int32Array(size).fill(-1);
      this.state = [];
      this.next = [];
      this.free = -1;
    }

    push(state, key) {
      let x;
      if (this.free >= 0) {
        x = this.free;
        this.free = this.next[x];
      } else {
        x = this.state.length;
        this.state.push(0);
        this.next.push(0);
      }
      const b = key % this.ring.length;
      this.state[x] = state;
      this.next[x] = this.ring[b];
      this.ring[b] = x;
    }

    pop(key) {
      const L = this.ring.length;
      while (this.ring[key % L] < 0) key++;
      const b = key % L, x = this.ring[b];
      this.ring[b] = this.next[x];
      this.next[x] = this.free;
      this.free = x;
      return [this.state[x], key];
    }
  }

  // rounds_to's A* order toward the start (search/grid.py: _TIE, _order, _units, _potential)
  const TIE = 64;

  function order(key, pot) {
    return TIE * (key + pot) + key;
  }

  function units(r, c, sr, sc) {
    const a = Math.abs(r - sr), b = Math.abs(c - sc);
    return 2 * Math.max(a, b) + Math.min(a, b);
  }

  function potential(u, rest, budget) {
    if (u <= 0) return 0;
    const per = 2 * budget + 1, drop = Math.max(rest - per, 0), over = u + Math.min(rest, per) - per;
    return u + (over > 0 ? 3 * Math.floor((over + per - 1) / per) : 0) - drop;
  }

  /** rounds_to: per square, the fewest rounds to ``goal`` from a fresh round there, and the first round's squares;
   * with a ``stop``, an A* toward it that counts only the squares a way of at most ``limit`` rounds (-1: the
   * stop's own) may pass, every other square given ``limit + 1`` rounds. */
  function roundsTo(mult, mask, cols, goal, budget, stop = -1, limit = -1) {
    const n = mult.length, width = 2 * budget + 4, off = offsets(cols);
    const rounds = new Int32Array(n).fill(-1), first = new Int32Array(n);
    const best = new Float64Array(n).fill(NONE), ord = new Float64Array(n);
    const q = new Ring(order(4 * width + 16, 4 * width + 16) + 1);
    const full = 2 * budget + 2, aim = stop >= 0;
    const sr = Math.floor(stop / cols), sc = stop % cols;
    const pot = (x, rest) => (aim ? potential(units(Math.floor(x / cols), x % cols, sr, sc), rest, budget) : 0);
    let end = limit < 0 || !aim ? NONE : order((limit + 1) * width, 0);
    best[goal] = full;
    let f = order(full, pot(goal, full));
    ord[goal] = f;
    q.push(goal, f);
    let size = 1, stopped = false;
    while (size > 0) {
      let y;
      [y, f] = q.pop(f);
      size -= 1;
      if (best[y] < 0 || ord[y] !== f) continue;
      if (f >= end) {
        stopped = true;
        break;
      }
      const key = best[y];
      const g = Math.floor(key / width), rest = key % width;
      const v = Math.floor(rest / 2), par = rest % 2;
      rounds[y] = g;
      first[y] = v;
      best[y] = -1;
      if (y === stop && limit < 0) {  // the stop's own rounds: the limit
        limit = g;
        end = order((g + 1) * width, 0);
      }
      for (let k = 0; k < 8; k++) {
        const x = y - off[k];
        if (x < 0 || x >= n || !((mask[x] >> k) & 1) || best[x] < 0) continue;
        let [c, p] = stepCost(mult, y, par, k);
        let nrest, nkey;
        if (v + c <= budget) {
          nrest = rest + 2 * c + p - par;
          nkey = key + 2 * c + p - par;
        } else {
          [c, p] = stepCost(mult, y, 0, k);
          nrest = c <= budget ? 2 * c + p : full;
          nkey = (g + 1) * width + nrest;
        }
        if (nkey < best[x]) {
          best[x] = nkey;
          ord[x] = order(nkey, pot(x, nrest));
          q.push(x, ord[x]);
          size += 1;
        }
      }
    }
    if (stopped) {
      for (let i = 0; i < n; i++) if (rounds[i] < 0) rounds[i] = limit + 1;
    }
    return { rounds, first };
  }

  function roundsLeft(rounds, first, sq, left) {
    const g = rounds[sq];
    if (g < 0) return NO_ROUND >> 1;
    return first[sq] <= left ? g - 1 : g;
  }

  function beyond(rounds, first, sq, left, t, maxRound) {
    return t + roundsLeft(rounds, first, sq, left) > maxRound;
  }

  /** _reaches: does a fresh round of at most ``budget`` squares from ``source`` enter ``target``? */
  function reaches(mult, mask, rows, cols, source, target, budget) {
    const r0 = Math.floor(source / cols), c0 = source % cols;
    const top = Math.max(0, r0 - budget), lft = Math.max(0, c0 - budget);
    const h = Math.min(rows, r0 + budget + 1) - top, w = Math.min(cols, c0 + budget + 1) - lft;
    const dist = new Float64Array(2 * h * w).fill(budget + 1);
    dist[2 * ((r0 - top) * w + c0 - lft)] = 0;
    const off = offsets(cols);
    for (let level = 0; level <= budget; level++) {
      for (let i = 0; i < 2 * h * w; i++) {
        if (dist[i] !== level) continue;
        const cell = i >> 1;
        const sq = (top + Math.floor(cell / w)) * cols + lft + (cell % w);
        if (sq === target) return true;
        for (let k = 0; k < 8; k++) {
          if (!((mask[sq] >> k) & 1)) continue;
          const v = sq + off[k];
          const vr = Math.floor(v / cols) - top, vc = (v % cols) - lft;
          if (vr < 0 || vr >= h || vc < 0 || vc >= w) continue;
          const [c, p] = stepCost(mult, v, i % 2, k);
          const j = 2 * (vr * w + vc) + p;
          if (level + c < dist[j]) dist[j] = level + c;
        }
      }
    }
    return false;
  }

  function cornerOk(mult, cols, r0, c0, r1, c1) {
    return r0 === r1 || c0 === c1 || (mult[r0 * cols + c1] !== 0 && mult[r1 * cols + c0] !== 0);
  }

  function clearLine(mult, occupant, cols, r, c, er, ec, charge) {
    const dr = er - r, dc = ec - c, major = Math.max(Math.abs(dr), Math.abs(dc));
    let pr = r, pc = c;
    for (let i = 1; i <= major; i++) {
      const [a, b] = lineSquare(i, dr, dc, major);
      const qr = r + a, qc = c + b, q = qr * cols + qc;
      if (mult[q] !== 1 || occupant[q] === ENEMY || (charge && occupant[q] !== 0)) return false;
      if (!cornerOk(mult, cols, pr, pc, qr, qc)) return false;
      pr = qr;
      pc = qc;
    }
    return true;
  }

  /** grid._clear_between: no line from a point of square (r, c) to a point of (er, ec) passes (the inside of)
   * a square that is not clear, the start's own excepted: a charge's clear path, as 3.5 states it. */
  function clearBetween(mult, occupant, cols, r, c, er, ec) {
    const dr = er - r, dc = ec - c, a = Math.abs(dr), b = Math.abs(dc);
    const major = Math.max(a, b), minor = Math.min(a, b);
    if (major === 0) return true;
    const sr = dr >= 0 ? 1 : -1, sc = dc >= 0 ? 1 : -1;
    for (let i = 0; i <= major; i++) {
      const lo = Math.max(0, Math.floor((minor * i - a - b) / major) + 1);  // |minor i - major j| < a + b
      const hi = Math.min(minor, Math.floor((minor * i + a + b - 1) / major));
      for (let j = lo; j <= hi; j++) {
        const [y, x] = b >= a ? [j, i] : [i, j];
        if (y === 0 && x === 0) continue;
        const q = (r + sr * y) * cols + c + sc * x;
        if (mult[q] !== 1 || occupant[q] !== 0) return false;
      }
    }
    return true;
  }

  function lineEnd(mult, occupant, canEnd, cols, r, c, e, low, high, charge, rounds, first, slack) {
    const er = Math.floor(e / cols), ec = e % cols;
    const cost = lineCost(er - r, ec - c);
    if (cost < low || cost > high || !canEnd[e]) return -1;
    if (beyond(rounds, first, e, 0, 0, slack)) return rounds[e] >= 0 ? -2 : -1;
    if (!clearLine(mult, occupant, cols, r, c, er, ec, charge)) return -1;
    return !charge || clearBetween(mult, occupant, cols, r, c, er, ec) ? cost : -1;
  }

  /** lines_from: the straight lines from ``source`` costing low..high squares -> {ends, costs, pruned}. */
  function linesFrom(mult, occupant, canEnd, rows, cols, source, low, high, charge, rounds, first, slack, near, nNear) {
    const r = Math.floor(source / cols), c = source % cols;
    const r0 = Math.max(0, r - high), r1 = Math.min(rows, r + high + 1);
    const c0 = Math.max(0, c - high), c1 = Math.min(cols, c + high + 1);
    const ends = [], costs = [];
    let pruned = false;
    if (nNear >= 0 && nNear < (r1 - r0) * (c1 - c0)) {
      for (let j = 0; j < nNear; j++) {
        const cost = lineEnd(mult, occupant, canEnd, cols, r, c, near[j], low, high, charge, rounds, first, slack);
        if (cost >= 0) { ends.push(near[j]); costs.push(cost); }
      }
      return { ends, costs, pruned: false };
    }
    for (let er = r0; er < r1; er++) {
      for (let ec = c0; ec < c1; ec++) {
        const e = er * cols + ec;
        const cost = lineEnd(mult, occupant, canEnd, cols, r, c, e, low, high, charge, rounds, first, slack);
        pruned = pruned || cost === -2;
        if (cost >= 0) { ends.push(e); costs.push(cost); }
      }
    }
    return { ends, costs, pruned };
  }

  // -- the round-by-round label search (search/grid.py: plan_labels) ---------------------------------
  class Labels {
    constructor() {
      this.rows = new Int32Array(1024 * COLUMNS);
      this.count = 0;
    }

    get(x, col) {
      return this.rows[x * COLUMNS + col];
    }

    set(x, col, v) {
      this.rows[x * COLUMNS + col] = v;
    }

    add() {
      if ((this.count + 1) * COLUMNS > this.rows.length) {
        const bigger = new Int32Array(2 * this.rows.length);
        bigger.set(this.rows);
        this.rows = bigger;
      }
      return this.count++;
    }
  }

  /** grid._moves: how many squares label ``x`` enters (a run's squares; none before the start). */
  function moves(lab, x, cols) {
    if (x < 0) return 0;
    if (lab.get(x, KIND) !== LINE) return 1;
    const e = lab.get(x, NODE) >> 1, p = lab.get(lab.get(x, PRED), NODE) >> 1;
    return Math.max(Math.abs(Math.floor(e / cols) - Math.floor(p / cols)), Math.abs((e % cols) - (p % cols)));
  }

  /** grid._square: square ``i`` (from 1) of those label ``x`` enters. */
  function squareOf(lab, x, i, cols) {
    const e = lab.get(x, NODE) >> 1;
    if (lab.get(x, KIND) !== LINE) return e;
    const p = lab.get(lab.get(x, PRED), NODE) >> 1;
    const dr = Math.floor(e / cols) - Math.floor(p / cols), dc = (e % cols) - (p % cols);
    const [r, c] = lineSquare(i, dr, dc, Math.max(Math.abs(dr), Math.abs(dc)));
    return p + r * cols + c;
  }

  /** grid._ahead: the tie rule between the ways to labels ``a`` and ``b`` (on one square): read back move by
   * move, the first difference goes into the lesser square, then in the earlier round, then with more left. */
  function ahead(lab, a, b, cols) {
    let ia = moves(lab, a, cols), ib = moves(lab, b, cols);
    while (a !== b || ia !== ib) {
      if (a < 0 || b < 0) return a < 0;
      const sa = squareOf(lab, a, ia, cols), sb = squareOf(lab, b, ib, cols);
      if (sa !== sb) return sa < sb;
      if (lab.get(a, T) !== lab.get(b, T)) return lab.get(a, T) < lab.get(b, T);
      if (lab.get(a, LEFT) !== lab.get(b, LEFT)) return lab.get(a, LEFT) > lab.get(b, LEFT);
      ia -= 1;
      ib -= 1;
      if (ia === 0) {
        a = lab.get(a, PRED);
        ia = moves(lab, a, cols);
      }
      if (ib === 0) {
        b = lab.get(b, PRED);
        ib = moves(lab, b, cols);
      }
    }
    return false;
  }

  /** grid._passed: the stops passed after entering square ``v`` with ``layer`` passed. */
  function passed(stops, jump, layer, v) {
    return layer < stops.length && stops[layer] === v ? jump[layer] : layer;
  }

  /** grid._line_layer: the stops passed after a straight line from ``source`` to ``end`` (each square entered). */
  function lineLayer(stops, jump, layer, cols, source, end) {
    if (layer >= stops.length) return layer;
    const dr = Math.floor(end / cols) - Math.floor(source / cols), dc = (end % cols) - (source % cols);
    const major = Math.max(Math.abs(dr), Math.abs(dc));
    for (let i = 1; i <= major; i++) {
      const [r, c] = lineSquare(i, dr, dc, major);
      layer = passed(stops, jump, layer, source + r * cols + c);
    }
    return layer;
  }

  /** grid._cut: 0 a label is kept, 1 cut by the bound, 2 by no round: past the last stop the count from the goal
   * bounds it, before it the count from the next stop (``toStop[layer]``) and the legs after it (``more``). */
  function cut(rounds, first, toStop, more, sq, left, t, maxRound, layer, last) {
    const c = layer < last ? toStop[layer] : { rounds, first };
    if (c.rounds[sq] < 0) return 2;
    return t + roundsLeft(c.rounds, c.first, sq, left) + (layer < last ? more[layer] : 0) > maxRound ? 1 : 0;
  }

  /** grid.plan_labels, through ``stops`` (jump: the layer each next stop leads to), round 1 with ``left0`` squares
   * left and diagonal parity ``parity0``. */
  function planLabels(mult, mask, canEnd, occupant, rows, cols, source, goal, budget, runBudget, maxRound, rounds, first,
    stops, jump, toStop, more, left0, parity0) {
    const n = rows * cols, width = budget + 1, off = offsets(cols), last = stops.length, layers = last + 1;
    const head = new Int32Array(2 * n * layers).fill(-1);
    const waitRound = new Int32Array(n * layers).fill(NO_ROUND), waitSpent = new Int32Array(n * layers);
    const waitLeft = new Int32Array(n * layers);
    const bucket = new Int32Array(2 * width + 1).fill(-1);
    const lab = new Labels();
    let size = 0;
    // a run's possible ends by the rounds the goal still takes after them
    let near = [], needSorted = [], nFinite = 0;
    if (runBudget > 0) {
      const need = new Float64Array(n);
      for (let i = 0; i < n; i++) need[i] = rounds[i] < 0 ? NO_ROUND : rounds[i] - (first[i] === 0 ? 1 : 0);
      near = Array.from({ length: n }, (_, i) => i).sort((a, b) => need[a] - need[b] || a - b);
      needSorted = near.map((i) => need[i]);
      nFinite = upper(needSorted, NO_ROUND - 0.5);
    }
    const offer = (key, v, layer, t, left, spent, parent, kind) => {
      const y = lab.add();  // written first, so that its way is read back as any other's (dropped if not kept)
      lab.set(y, T, t); lab.set(y, LEFT, left); lab.set(y, SPENT, spent);
      lab.set(y, NODE, v); lab.set(y, PRED, parent); lab.set(y, KIND, kind);
      lab.set(y, DEAD, 0); lab.set(y, LAYER, layer);
      const h = v + 2 * n * layer;
      let prev = -1, x = head[h];
      while (x >= 0) {
        const nx = lab.get(x, NNEXT);
        const xl = lab.get(x, LEFT), xt = lab.get(x, T), xs = lab.get(x, SPENT);
        if (xl === left && xt === t && xs === spent) {  // the same label by another way: the rule's kept
          if (ahead(lab, y, x, cols)) {
            lab.set(x, PRED, parent);
            lab.set(x, KIND, kind);
          }
          lab.count -= 1;
          return;
        }
        if (xl >= left && (xt < t || (xt === t && xs <= spent))) {
          lab.count -= 1;
          return;
        }
        if (left >= xl && (t < xt || (t === xt && spent <= xs))) {
          lab.set(x, DEAD, 1);
          if (prev < 0) head[h] = nx; else lab.set(prev, NNEXT, nx);
        } else {
          prev = x;
        }
        x = nx;
      }
      lab.set(y, NNEXT, head[h]);
      head[h] = y;
      const b = key % bucket.length;
      lab.set(y, BNEXT, bucket[b]);
      bucket[b] = y;
      size += 1;
    };
    offer(width + budget - left0, 2 * source + parity0, passed(stops, jump, 0, source), 1, left0, 0, -1, START);
    let key = width + budget - left0, best = -1, pruned = false;
    while (size > 0) {
      while (bucket[key % bucket.length] < 0) key++;
      const b = key % bucket.length, x = bucket[b];
      bucket[b] = lab.get(x, BNEXT);
      size -= 1;
      if (lab.get(x, DEAD)) continue;
      const t = lab.get(x, T), left = lab.get(x, LEFT), spent = lab.get(x, SPENT), node = lab.get(x, NODE);
      const layer = lab.get(x, LAYER);
      if (best >= 0 && t > lab.get(best, T)) break;
      const sq = node >> 1, parity = node & 1;
      if (sq === goal && layer === last) {  // (of ways as cheap, the rule's)
        if (best < 0 || spent < lab.get(best, SPENT) || (spent === lab.get(best, SPENT) && ahead(lab, x, best, cols))) {
          best = x;
        }
        continue;
      }
      const steps = mask[sq];
      for (let k = 0; k < 8; k++) {  // on within the round
        if (!((steps >> k) & 1)) continue;
        const v = sq + off[k];
        const [c, p] = stepCost(mult, v, parity, k);
        if (c > left) continue;
        const nlayer = passed(stops, jump, layer, v), why = cut(rounds, first, toStop, more, v, left - c, t, maxRound, nlayer, last);
        if (why) {
          pruned = pruned || why === 1;
          continue;
        }
        offer(key + c, 2 * v + p, nlayer, t, left - c, spent + c, x, STEP);
      }
      // the next round, from the first (then cheapest) label of a square where a round may end; of those as
      // cheap, with as much left (another parity) each offers the same labels, each keeping the rule's way
      const fresh = lab.get(x, KIND) === START && left === budget;
      const state = layer * n + sq;
      if (!canEnd[sq] || (waitRound[state] !== NO_ROUND && (waitRound[state] < t || waitSpent[state] < spent
        || (waitSpent[state] === spent && waitLeft[state] > left)))) continue;
      waitRound[state] = t;
      waitSpent[state] = spent;
      waitLeft[state] = left;
      const nt = fresh ? t : t + 1;
      if (nt > maxRound || (best >= 0 && nt > lab.get(best, T))) {
        pruned = pruned || nt > maxRound;
        continue;
      }
      for (let k = 0; k < 8; k++) {
        if (!((steps >> k) & 1)) continue;
        const v = sq + off[k];
        let [c, p] = stepCost(mult, v, 0, k);
        let nl, ns, how, nkey;
        if (c <= budget) {
          if (fresh) continue;  // the start's own round took these steps already
          [nl, ns, how, nkey] = [budget - c, spent + c, WAIT, nt * width + c];
        } else if (canEnd[v] && (mult[v] > budget || !reaches(mult, mask, rows, cols, sq, v, budget))) {
          [p, nl, ns, how, nkey] = [0, 0, spent + 1, FULL, nt * width + budget];
        } else {
          continue;
        }
        const nlayer = passed(stops, jump, layer, v), why = cut(rounds, first, toStop, more, v, nl, nt, maxRound, nlayer, last);
        if (why) {
          pruned = pruned || why === 1;
          continue;
        }
        offer(nkey, 2 * v + p, nlayer, nt, nl, ns, x, how);
      }
      if (runBudget > 0) {
        let bound = { rounds, first }, nNear = -1, slack = NO_ROUND >> 2;  // (a run may pass the stop: each end
        if (layer === last) {                                               // bounded at its own layer below)
          nNear = upper(needSorted, maxRound - nt);
          slack = maxRound - nt;
        } else if (Math.max(Math.abs(Math.floor(stops[layer] / cols) - Math.floor(sq / cols)),
          Math.abs((stops[layer] % cols) - (sq % cols))) > runBudget) {
          bound = toStop[layer];  // no run from here reaches the next stop: every end stays in this layer
          slack = maxRound - nt - more[layer];
        }
        const lines = linesFrom(mult, occupant, canEnd, rows, cols, sq, 1, runBudget, false, bound.rounds, bound.first,
          slack, near, nNear);
        pruned = pruned || lines.pruned || (layer === last && nNear < nFinite);
        for (let j = 0; j < lines.ends.length; j++) {
          const e = lines.ends[j], nlayer = lineLayer(stops, jump, layer, cols, sq, e);
          const why = cut(rounds, first, toStop, more, e, 0, nt, maxRound, nlayer, last);
          if (why) {
            pruned = pruned || why === 1;
            continue;
          }
          offer(nt * width + budget, 2 * e, nlayer, nt, 0, spent + lines.costs[j], x, LINE);
        }
      }
    }
    return { lab, best, pruned };
  }

  /** numpy.searchsorted(sorted, v, "right"): how many are <= v. */
  function upper(sorted, v) {
    let lo = 0, hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] <= v) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  /** The goal's chain of labels, start first: [{t, spent, node, kind}]. */
  function chain(lab, best) {
    const out = [];
    for (let x = best; x >= 0; x = lab.get(x, PRED)) {
      out.push({ t: lab.get(x, T), spent: lab.get(x, SPENT), node: lab.get(x, NODE), kind: lab.get(x, KIND) });
    }
    return out.reverse();
  }

  // -- reach and route (eidomap.answers.grid) -----------------------------------------------------------------
  class Planner {
    constructor(data) {
      this.grid = new Grid(C.array(data.flags), C.array(data.occupant), data.rows, data.cols, data.source,
        data.row_lines);
    }

    static mover(o) {
      return new Mover(o.speed === undefined ? 30 : o.speed, o.mode === undefined ? "move" : o.mode, !!o.heavy_armor, !!o.flying,
        !!o.fatigued);
    }

    /** answers.grid._prepare: the grid with the creatures of ``o`` on it, and the start (named ``name``) checked. */
    prepare(start, o, name = "start") {
      const allies = parseSquares(o.allies, "ally");
      const enemies = parseSquares(o.enemies !== undefined ? o.enemies : o.blocked, "blocked square");
      let grid = this.grid;
      if (allies.length || enemies.length) grid = grid.withOccupants(allies, enemies);
      start = grid.check(parseSquare(start, name), name);
      const at = grid.at(start);
      if (grid.flags[at] & IMPASSABLE) throw new RequestError(`${grid.where(start)}: ${name} ${square(start)} is impassable`);
      if (grid.occupant[at]) {
        throw new RequestError(`${grid.where(start)}: ${name} ${square(start)} is occupied by`
          + ` ${grid.occupant[at] === ALLY ? "an ally" : "an enemy"}`);
      }
      return [grid, start];
    }

    /** d20._stops: the stops as flat squares, and the layer each next stop leads to (past a repeat of it). */
    static stops(flat) {
      const jump = flat.map((_, i) => i + 1);
      for (let i = flat.length - 2; i >= 0; i--) if (flat[i + 1] === flat[i]) jump[i] = jump[i + 1];
      return [flat, jump];
    }

    /** d20._plan: the labels of a round's search (goal -1) or of a route through ``stops`` (flat squares), round 1
     * with ``left`` squares left (null: all) and diagonal parity ``parity``, and the goal's best. */
    static plan(grid, mover, source, goal, stops = [], left = null, parity = 0) {
      const { rows, cols } = grid;
      const { mult, enterable, canEnd, occupant } = grid.arrays(mover.flying);
      const mask = stepMasks(mult, enterable, rows, cols);
      const run = mover.mode === "run" ? mover.budget : 0;
      if (left === null) left = mover.stepBudget;
      const args = [mult, mask, canEnd, occupant, rows, cols, source, goal, mover.stepBudget, run];
      const toStop = [], more = stops.map(() => 0);
      if (goal < 0) {
        const n = rows * cols;
        return planLabels(...args, 1, new Int32Array(n).fill(1), new Int32Array(n), ...Planner.stops(stops), toStop, more,
          left, parity);
      }
      const budget = Math.max(mover.stepBudget, run);
      // the fewest rounds from the start by a count from a fresh round (a round 1 under way goes on step by step)
      const opening = (c) => (left === mover.stepBudget ? c.rounds[source] : roundsLeft(c.rounds, c.first, source, left) + 1);
      let low = 0, begun = false, counted = null;
      const points = [source, ...stops, goal];
      for (let i = 1; i < points.length; i++) {
        const a = points[i - 1], b = points[i];
        if (a === b) continue;
        const legs = roundsTo(mult, mask, cols, b, budget, a);
        if (legs.rounds[a] < 0) return { lab: null, best: -1 };
        low += begun ? legs.rounds[a] - 1 : opening(legs);
        for (let j = 0; j < i - 1; j++) more[j] += legs.rounds[a] - 1;  // (the legs after stop j still to go)
        begun = true;
        counted = a === source && b === goal ? legs : null;
      }
      stops.forEach((stop, j) => toStop.push(j && stop === stops[j - 1] ? toStop[j - 1] : roundsTo(mult, mask, cols, stop, budget)));
      const on = [...Planner.stops(stops), toStop, more, left, parity];
      let { rounds, first } = counted || roundsTo(mult, mask, cols, goal, budget, source);
      if (rounds[source] < 0) return { lab: null, best: -1 };
      let bound = Math.max(low, opening({ rounds, first })), slack = 1;
      if (bound !== rounds[source]) ({ rounds, first } = roundsTo(mult, mask, cols, goal, budget, source, bound));
      for (;;) {
        const res = planLabels(...args, bound, rounds, first, ...on);
        if (res.best >= 0 || !res.pruned) return res;
        bound += slack;
        slack *= 2;
        ({ rounds, first } = roundsTo(mult, mask, cols, goal, budget, source, bound));  // counted again for it
      }
    }

    /** d20._under_way: the feet ``o.used`` of this round's movement already used, checked, and ``o.odd_diagonals``
     * with it (only for a round under way): [used, odd]. */
    static underWay(mover, o) {
      const used = o.used === undefined || o.used === null ? 0 : o.used, roundFeet = mover.stepBudget * FEET;
      if (!isInt(used) || !(used >= 0 && used <= roundFeet) || used % FEET) {
        throw new RequestError(`used must be a multiple of 5 ft from 0 to ${roundFeet} (a round's movement at speed`
          + ` ${mover.speed} ft, ${mover.mode}), got ${repr(used)}`);
      }
      const odd = !!o.odd_diagonals;
      if (odd && used === 0) {
        throw new RequestError("odd_diagonals is for a round already under way: give used=..., the feet moved in it");
      }
      return [used, odd];
    }

    /** d20._line_ends: this round's straight lines (a run, a charge): {ends: [[square, squares]], why}. */
    static lineEnds(grid, mover, source, target) {
      const { rows, cols } = grid;
      const charge = mover.mode === "charge";
      if (target !== null && !grid.occupant[grid.at(target)]) grid = grid.withOccupants([], [target]);
      const { mult, canEnd, occupant } = grid.arrays(mover.flying);
      const high = Math.min(mover.budget, rows + cols), n = rows * cols;
      const lines = linesFrom(mult, occupant, canEnd, rows, cols, source, charge ? CHARGE_MIN : 1, high, charge,
        new Int32Array(n).fill(1), new Int32Array(n), 0, [], -1);
      let ends = lines.ends.map((e, j) => [e, lines.costs[j]]);
      if (target === null) return { ends, why: "" };
      const r = Math.floor(source / cols), c = source % cols;
      const around = DIRECTIONS.map(([dr, dc]) => [target[0] + dr, target[1] + dc])
        .filter(([a, b]) => a >= 0 && a < rows && b >= 0 && b < cols);
      const closest = Math.min(...around.map(([a, b]) => lineCost(a - r, b - c)));
      const nearest = around.filter(([a, b]) => lineCost(a - r, b - c) === closest).map(square).join(" ");
      const said = `the closest square from which to attack ${square(target)} (${nearest}) is ${closest * 5} ft away`;
      if (closest < CHARGE_MIN) return { ends: [], why: `${said}: a charge moves at least ${CHARGE_MIN * 5} ft` };
      if (closest > mover.budget) return { ends: [], why: `${said}: more than twice the speed` };
      const ok = new Set(around.map(([a, b]) => a * cols + b));
      ends = ends.filter(([e, f]) => ok.has(e) && f === closest);
      return { ends, why: ends.length ? "" : `${said}, and a line from the start square to it passes a hampering,`
        + " occupied or impassable square, or it is one (3.5: every line must be clear)" };
    }

    /** d20.reach -> {reachable: {"R,C": feet}, full_round: ["R,C"]} (GridReach.as_dict), and why there is no charge. */
    reachAll(at, o = {}) {
      const mover = Planner.mover(o);
      const [used, odd] = Planner.underWay(mover, o);
      if (used && (mover.mode === "charge" || mover.mode === "step")) {
        throw new RequestError("used is for a round's movement under way (mode move, double or run), not for mode"
          + ` ${repr(mover.mode)}: ${mover.mode === "charge" ? "a charge is a full-round action"
            : "a 5-foot step is taken in a round with no other movement"}`);
      }
      let [grid, start] = this.prepare(at, o, "at");
      let target = null;
      if (o.target !== undefined && o.target !== null) {
        if (mover.mode !== "charge") throw new RequestError(`a target is for a charge (mode 'charge'), not for mode ${repr(mover.mode)}`);
        target = grid.check(parseSquare(o.target, "target"), "target");
        if (grid.flags[grid.at(target)] & IMPASSABLE) {
          throw new RequestError(`${grid.where(target)}: the target ${square(target)} is impassable; no creature stands there`);
        }
      }
      const { rows, cols } = grid;
      const s = grid.at(start);
      const feet = new Map(mover.mode === "charge" ? [] : [[s, 0]]);
      const fullRound = [];
      const { mult, enterable, canEnd } = grid.arrays(mover.flying);
      let why = "";
      if (mover.mode === "step") {
        if (mover.squares > 1) {
          const ways = stepMasks(mult, enterable, rows, cols)[s];
          DIRECTIONS.forEach(([dr, dc], k) => {
            const q = s + dr * cols + dc;
            if ((ways >> k) & 1 && mult[q] === 1 && canEnd[q]) feet.set(q, FEET);
          });
        }
      } else if (mover.straight && !used) {  // (a run does not begin in a round under way: it goes on step by step)
        const lines = Planner.lineEnds(grid, mover, s, target);
        why = lines.why;
        lines.ends.map((e, i) => [e, i]).sort((a, b) => a[0][1] - b[0][1] || a[1] - b[1])
          .forEach(([[q, squares]]) => feet.set(q, squares * FEET));
      } else {
        const { lab } = Planner.plan(grid, mover, s, -1, [], mover.stepBudget - used / FEET, odd ? 1 : 0);
        const best = new Float64Array(rows * cols).fill(Infinity), full = new Set();
        for (let x = 0; x < lab.count; x++) {
          const sq = lab.get(x, NODE) >> 1;
          if (lab.get(x, KIND) === FULL) full.add(sq);
          else if (canEnd[sq] && lab.get(x, SPENT) < best[sq]) best[sq] = lab.get(x, SPENT);
        }
        for (let q = 0; q < best.length; q++) if (best[q] < Infinity) feet.set(q, best[q] * FEET);
        fullRound.push(...Array.from(full).sort((a, b) => a - b));
      }
      const name = (q) => square([Math.floor(q / cols), q % cols]);
      const reachable = {};
      for (const [q, f] of feet) reachable[name(q)] = f;
      return { reachable, full_round: fullRound.map(name), why, used };
    }

    /** ``eidomap d20 reach --json``. */
    reach(at, o = {}) {
      const { reachable, full_round: fullRound } = this.reachAll(at, o);
      return { reachable, full_round: fullRound };
    }

    /** d20.route -> the rounds, feet, path, round ends and actions (GridRoute.as_dict) and why there is no way;
     * ``legs`` are the rounds (the page draws them), ``viaLegs`` the legs through the stops (``legs`` in the JSON),
     * ``pathFeet`` and ``pathParity`` the feet spent and the diagonal parity at each square of the path. */
    routeAll(from, to, o = {}) {
      const mover = Planner.mover(o);
      if (!["move", "double", "run"].includes(mover.mode)) {
        throw new RequestError(`a route moves by move, double or run rounds, not ${repr(mover.mode)}`);
      }
      const stops = parseSquares(o.via, "via");
      if (stops.length > MAX_STOPS) throw new RequestError(`via must be at most ${MAX_STOPS} stops, got ${stops.length}`);
      const [used, odd] = Planner.underWay(mover, o);
      const [grid, start] = this.prepare(from, o);
      const goal = grid.check(parseSquare(to, "goal"), "goal");
      if (grid.flags[grid.at(goal)] & IMPASSABLE) throw new RequestError(`${grid.where(goal)}: the goal ${square(goal)} is impassable`);
      const { rows, cols } = grid;
      for (const sq of stops) {
        if (!(sq[0] >= 0 && sq[0] < rows && sq[1] >= 0 && sq[1] < cols)) {
          throw new RequestError(`${grid.source}: stop ${square(sq)} of via=... is outside the grid (${rows} rows x ${cols} columns)`);
        }
        if (grid.flags[grid.at(sq)] & IMPASSABLE) throw new RequestError(`${grid.where(sq)}: stop ${square(sq)} of via=... is impassable`);
      }
      const count = (x) => x.toLocaleString("en");
      if (rows * cols * (stops.length + 1) > MAX_LAYERED_SQUARES) {
        throw new RequestError(`via has ${stops.length} stops: on a grid of ${count(rows * cols)} squares the search would`
          + ` hold ${count(rows * cols * (stops.length + 1))} squares-and-stops, more than ${count(MAX_LAYERED_SQUARES)};`
          + " give fewer stops");
      }
      const out = { rounds: null, feet: null, path: [], round_ends: [], actions: [], legs: [], why: "",
        via: stops.map(square), used, viaLegs: [] };
      const same = (p, q) => p[0] === q[0] && p[1] === q[1];
      if (same(start, goal) && stops.every((sq) => same(sq, start))) {
        const viaLegs = [...stops, goal].map((sq) => ({ from: square(start), to: square(sq), squares: 0, feet: 0, round: 0 }));
        return { ...out, rounds: 0, feet: 0, path: [square(start)], viaLegs };
      }
      const occupied = (sq, what, so) => {
        const who = grid.occupant[grid.at(sq)];
        return who ? `the ${what} ${square(sq)} is occupied by ${who === ALLY ? "an ally" : "an enemy"}: ${so}` : "";
      };
      let why = occupied(goal, "goal", "no move ends there");
      for (const sq of stops) {
        why = why || (grid.occupant[grid.at(sq)] !== ALLY ? occupied(sq, "stop", "no move enters it") : "");
      }
      if (why) return { ...out, why };
      const moved = used / FEET;
      const { lab, best } = Planner.plan(grid, mover, grid.at(start), grid.at(goal), stops.map((sq) => grid.at(sq)),
        mover.stepBudget - moved, odd ? 1 : 0);
      if (best < 0) return { ...out, why: stops.length ? Planner.noLeg(grid, mover, [start, ...stops, goal]) : "" };
      const steps = chain(lab, best);
      const { mult } = grid.arrays(mover.flying);
      const path = [start], spent = [0], when = [0], legs = [], parity = [odd ? 1 : 0];
      for (let b = 1; b < steps.length; b++) {
        const sq = steps[b].node >> 1;
        const here = [Math.floor(sq / cols), sq % cols];
        let squares;
        if (steps[b].kind === LINE) {  // a run: a line's first squares cost their own line's
          const prev = path[path.length - 1];
          const ds = line(here[0] - prev[0], here[1] - prev[1]);
          squares = ds.map(([dr, dc]) => [prev[0] + dr, prev[1] + dc]);
          for (const [dr, dc] of ds) spent.push(steps[b - 1].spent + lineCost(dr, dc));
        } else {
          squares = [here];
          spent.push(steps[b].spent);
        }
        for (let i = 0; i < squares.length; i++) {
          when.push(steps[b].t);
          parity.push(steps[b].node & 1);
        }
        if (!legs.length || legs[legs.length - 1].round !== steps[b].t) {
          legs.push({ round: steps[b].t, squares: [], feet: 0, action: steps[b].kind === FULL ? FULL_ROUND : "" });
        }
        const leg = legs[legs.length - 1];
        leg.squares.push(...squares);
        leg.feet += (steps[b].spent - steps[b - 1].spent) * FEET;
        path.push(...squares);
      }
      for (const leg of legs) {
        const end = leg.squares[leg.squares.length - 1];
        const before = leg.round === 1 ? moved : 0;  // (round 1: the feet already moved count toward its action)
        const clearStep = leg.squares.length === 1 && leg.feet === FEET && mult[grid.at(end)] === 1 && !before;
        leg.action = mover.action(Math.floor(leg.feet / FEET) + before, clearStep, leg.action === FULL_ROUND);
      }
      // the legs through the stops: each ends at the first square where one more stop is passed, the start counted
      const ends = [];
      let i = 0;
      path.forEach((sq, k) => {
        while (i < stops.length && same(stops[i], sq)) {
          ends.push(k);
          i += 1;
        }
      });
      ends.push(path.length - 1);
      let at = 0;
      const viaLegs = ends.map((e, j) => {
        const leg = { from: square(path[at]), to: square(j < stops.length ? stops[j] : goal), squares: e - at,
          feet: (spent[e] - spent[at]) * FEET, round: when[e] };
        at = e;
        return leg;
      });
      return {
        ...out, rounds: legs[legs.length - 1].round, feet: steps[steps.length - 1].spent * FEET, path: path.map(square),
        round_ends: legs.map((l) => square(l.squares[l.squares.length - 1])), actions: legs.map((l) => l.action),
        legs: legs.map((l) => ({ ...l, squares: l.squares.map(square) })), viaLegs,
        // (for the play mode: the feet spent from the start and the diagonal parity at each square of the path)
        pathFeet: spent.map((x) => x * FEET), pathParity: parity,
      };
    }

    /** d20._no_leg: the first leg of a journey through stops with no way at all (counted back from its end). */
    static noLeg(grid, mover, squares) {
      const { rows, cols } = grid;
      const { mult, enterable } = grid.arrays(mover.flying);
      const mask = stepMasks(mult, enterable, rows, cols);
      const budget = Math.max(mover.stepBudget, mover.mode === "run" ? mover.budget : 0);
      for (let i = 1; i < squares.length; i++) {
        const x = grid.at(squares[i - 1]), y = grid.at(squares[i]);
        if (x !== y && roundsTo(mult, mask, cols, y, budget, x).rounds[x] < 0) {
          return `no way from ${square(squares[i - 1])} to ${square(squares[i])}`;
        }
      }
      return "";
    }

    /** ``eidomap d20 route --json``. */
    route(from, to, o = {}) {
      return this.json(this.routeAll(from, to, o));
    }

    /** The ``--json`` form of a :meth:`routeAll` answer (its legs through the stops, not its rounds). */
    json(r) {
      return { rounds: r.rounds, feet: r.feet, path: r.path, round_ends: r.round_ends, actions: r.actions, via: r.via,
        used: r.used, legs: r.viaLegs };
    }

    // -- the words of `eidomap d20 reach` and `d20 route` (cli/d20_tactical.py) ----------------------
    // (``given``: the reachAll / routeAll answer of the same question when the caller has it -- the page, which shows
    // both: the search is not run twice)
    reachText(at, o = {}, given = null) {
      const mover = Planner.mover(o);
      const r = given || this.reachAll(at, o);
      const feet = Object.entries(r.reachable);
      const lines = [`${C.plural(feet.length, "square")} reachable from ${square(parseSquare(at, "start"))} this round`
        + ` (speed ${mover.speed} ft, ${mover.said}: up to ${mover.budget * FEET} ft)`];
      if (r.used) lines.push(`  ${r.used} ft of this round already used: up to ${mover.stepBudget * FEET - r.used} ft more, step by step`);
      for (const ft of [...new Set(feet.map(([, f]) => f))].sort((a, b) => a - b)) {
        lines.push(`  ${String(ft).padStart(4)} ft: ${feet.filter(([, f]) => f === ft).map(([q]) => q).join(" ")}`);
      }
      if (r.full_round.length) {
        lines.push("  only by the full-round 5-ft move (a full-round action, 5 ft): " + r.full_round.join(" "));
      }
      if (r.why) lines.push(`  no charge: ${r.why}`);
      return lines.join("\n") + "\n";
    }

    routeText(from, to, o = {}, given = null) {
      const mover = Planner.mover(o);
      const r = given || this.routeAll(from, to, o);
      const a = square(parseSquare(from, "start")), b = square(parseSquare(to, "goal"));
      if (r.rounds === null) return `no way from ${a} to ${b}${r.why ? ": " + r.why : ""}\n`;
      const lines = [`${a} -> ${b}: ${C.plural(r.rounds, "round")}, ${r.feet} ft (speed ${mover.speed} ft, ${mover.said})`];
      if (r.via.length) lines.push(`  via ${r.via.join(" ")}`);
      if (r.used) lines.push(`  ${r.used} ft of round 1 already used`);
      if (r.via.length) {
        r.viaLegs.forEach((leg, k) => lines.push(`  leg ${k + 1}: ${leg.from} -> ${leg.to}: ${C.plural(leg.squares, "square")},`
          + ` ${leg.feet} ft, there in round ${leg.round}`));
      }
      for (const leg of r.legs) {
        lines.push(`  round ${String(leg.round).padStart(3)}: ${leg.action.padEnd(15)} ${leg.squares.join(" ")}  (${leg.feet} ft)`);
      }
      return lines.join("\n") + "\n";
    }
  }

  return { Planner, parseSquare, square, IMPASSABLE, DIFFICULT, OBSTACLE, POOR_VISIBILITY, ALLY, ENEMY };
})(EidomapCommon);
