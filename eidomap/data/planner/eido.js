// The Eido rules in the page: eidomap's route and reach, ported from its Python searches.
//
// Every function here follows one of eidomap's (named in its comment) step for step, so that the
// page gives the answers `eidomap route --json` and `eidomap reach --json` give: the same
// itineraries (of equally good routes, the one eidomap's tie rule takes: docs/rules.md, "Ties"), the
// same costs and turns, probabilities to rounding.  Nothing here touches the page: the page
// script (eido_page.js) calls EidoPlanner.
"use strict";

var EidoPlanner = (function (C) {
  const { RequestError, repr, isInt, TupleHeap } = C;
  const EPS = 1e-9;
  const MAX_TURNS = 10000;
  // routing.MAX_DEBT (the catalog's largest number), search.stops' bounds
  const MAX_DEBT = 1000000, MAX_STOPS = 100, MAX_LAYERED_EDGES = 50000000;
  // search.policy's bounds: nodes, pairs within a turn's reach, cells of a table (a node by a budget or a target)
  const MAX_POLICY_NODES = 20000, MAX_POLICY_PAIRS = 10000000, MAX_POLICY_CELLS = 20000000;
  const RING_BUDGET = 255;  // search.policy's: the largest turn whose balls are searched over buckets
  const MAX_DICE = 100, MAX_SIDES = 1000, MAX_MODIFIER = MAX_DICE * MAX_SIDES;
  // rules.dice: NdM+K in the digits 0-9, ASCII blanks between
  const DICE = /^[ \t\n\r\f\v]*([0-9]*)[ \t\n\r\f\v]*[dD][ \t\n\r\f\v]*([0-9]+)[ \t\n\r\f\v]*(?:([+-])[ \t\n\r\f\v]*([0-9]+))?[ \t\n\r\f\v]*$/;
  const STEP_WORDS = {
    border: "", road: "along the road", board: "onto the road", board_adjacent: "onto the road from next door",
    alight: "off the road", teleport: "teleport", stream: "up the stream", road_eido: "along the road",
  };

  // -- the compiled network (eidomap.model.network.Network) ----------------------------------------------
  class Network {
    constructor(d) {
      this.ids = d.node_ids;
      this.where = d.map;  // the map, as errors name it
      this.n = d.node_ids.length;
      this.nEidos = d.n_eidos;
      this.kinds = d.kinds;
      this.terrainNames = d.terrain_names;
      this.indptr = C.array(d.net.indptr);
      this.dst = C.array(d.net.dst);
      this.kind = C.array(d.net.kind);
      this.terrain = C.array(d.net.terrain);
      this.layer = C.array(d.net.node_layer);
      this.nodeTerrain = C.array(d.net.node_terrain);
      const m = this.dst.length, n = this.n;
      this.width = this.terrainNames.length + 1;
      this.codes = new Int32Array(m);
      this.src = new Int32Array(m);
      for (let u = 0; u < n; u++) {
        for (let e = this.indptr[u]; e < this.indptr[u + 1]; e++) this.src[e] = u;
      }
      const starts = [];
      const pairIndptr = new Int32Array(n + 1);
      for (let e = 0; e < m; e++) {
        const w = this.width;
        this.codes[e] = this.kind[e] * w + (((this.terrain[e] % w) + w) % w);  // terrain -1: the last column
        if (e === 0 || this.src[e] !== this.src[e - 1] || this.dst[e] !== this.dst[e - 1]) {
          starts.push(e);
          pairIndptr[this.src[e] + 1] += 1;
        }
      }
      for (let u = 0; u < n; u++) pairIndptr[u + 1] += pairIndptr[u];
      this.pairStart = Int32Array.from(starts);
      this.pairIndptr = pairIndptr;
      this.pairDst = new Int32Array(starts.length);
      for (let p = 0; p < starts.length; p++) this.pairDst[p] = this.dst[starts[p]];
      this.heap = new Dijkstra(n);
      this.index = new Map();  // Eidos first: an id that is both names the Eido (Map.node_index)
      this.ids.forEach((id, k) => { if (this.layer[k] < 2 && !this.index.has(id)) this.index.set(id, k); });
    }

    /** Network.edge_weights: every edge's weight, one gather from a (kind x terrain+1) table. */
    edgeWeights(table) {
      const w = new Float64Array(this.dst.length);
      for (let e = 0; e < w.length; e++) w[e] = table[this.codes[e]];
      return w;
    }

    /** Network.pair_weights: the cheapest edge of each (source, target) pair. */
    pairWeights(edgeW) {
      const P = this.pairStart.length, out = new Float64Array(P);
      for (let p = 0; p < P; p++) {
        const end = p + 1 < P ? this.pairStart[p + 1] : edgeW.length;
        let best = edgeW[this.pairStart[p]];
        for (let e = this.pairStart[p] + 1; e < end; e++) if (edgeW[e] < best) best = edgeW[e];
        out[p] = best;
      }
      return out;
    }

    /** search.weighted.dijkstra from one source: {dist, reached}. */
    dijkstra(edgeW, source, limit = Infinity) {
      return this.heap.run(this.pairIndptr, this.pairDst, this.pairWeights(edgeW), source, limit);
    }

    /**
     * search.ties.cheapest_path: the edges of the cheapest route from ``source`` to ``target`` the tie rule
     * answers, from the cheapest costs ``dist`` alone: the fewest steps, then, read back from the goal, the
     * least node (of equally cheap steps between two nodes, the kind listed first).  Of the tight edges (into
     * nodes no dearer than the route, ``dist[u] + w <= dist[v] + EPS``), a breadth-first search's levels from
     * the source; each node's step the first tight edge (the least source, then kind) from one level nearer.
     * ``last`` (edges into ``target``, in the network's order): the route ends with the cheapest of them, after a
     * cheapest way to its source, into ``target`` by those alone and never on from it.
     */
    cheapestPath(edgeW, dist, source, target, last = null) {
      if (source === target) return [];
      const n = this.n, m = this.dst.length;
      let bound = dist[target];
      if (last !== null) {  // the cheapest of the ways in allowed (each after a cheapest way to its source)
        const ends = last.map((e) => dist[this.src[e]] + edgeW[e]);
        bound = Math.min(...ends);
        last = last.filter((e, i) => ends[i] <= bound + EPS);
      }
      const tight = new Uint8Array(m);
      for (let e = 0; e < m; e++) {
        const v = this.dst[e];
        if (dist[v] <= bound + EPS && dist[this.src[e]] + edgeW[e] <= dist[v] + EPS) tight[e] = 1;
        if (last !== null && (v === target || this.src[e] === target)) tight[e] = 0;  // by those steps alone
      }
      if (last !== null) for (const e of last) tight[e] = 1;
      const level = new Int32Array(n).fill(-1), queue = [source];
      level[source] = 0;
      for (let i = 0; i < queue.length; i++) {
        const u = queue[i];
        for (let e = this.indptr[u]; e < this.indptr[u + 1]; e++) {
          const v = this.dst[e];
          if (tight[e] && level[v] < 0) {
            level[v] = level[u] + 1;
            queue.push(v);
          }
        }
      }
      const step = new Int32Array(n).fill(-1);
      for (let e = 0; e < m; e++) {
        const u = this.src[e], v = this.dst[e];
        if (tight[e] && level[u] >= 0 && level[u] + 1 === level[v] && step[v] < 0) step[v] = e;
      }
      const edges = [];
      for (let v = target; v !== source; v = this.src[edges[edges.length - 1]]) edges.push(step[v]);
      return edges.reverse();
    }

    /** The cheapest cost from every node to ``target``: a search of the reversed graph (SciPy's on ``csr.T``). */
    costsTo(edgeW, target) {
      if (!this.back) {  // the pairs by target, then source: the reversed graph's CSR
        const P = this.pairDst.length, src = new Int32Array(P);
        for (let u = 0; u < this.n; u++) for (let p = this.pairIndptr[u]; p < this.pairIndptr[u + 1]; p++) src[p] = u;
        const order = Int32Array.from({ length: P }, (_, p) => p).sort((a, b) => this.pairDst[a] - this.pairDst[b]
          || src[a] - src[b]);
        const indptr = new Int32Array(this.n + 1);
        for (let p = 0; p < P; p++) indptr[this.pairDst[p] + 1] += 1;
        for (let u = 0; u < this.n; u++) indptr[u + 1] += indptr[u];
        this.back = { indptr, dst: Int32Array.from(order, (p) => src[p]), order };
      }
      const pw = this.pairWeights(edgeW), { indptr, dst, order } = this.back;
      return this.heap.run(indptr, dst, Float64Array.from(order, (p) => pw[p]), target, Infinity).dist;
    }

    /**
     * search.stops.through_stops: the network layered by the stops passed.  Node ``u * layers + i`` is node
     * ``u`` with ``i`` stops passed; a step into the next stop goes on in the next layer (past each following
     * stop that is the same node).  Its edges keep the map's order in each layer: the tie rule reads it as eidomap
     * does.  Returns {net, layers, start(u), goal(u)}.
     */
    throughStops(stops) {
      const k = stops.length, layers = k + 1, n = this.n, m = this.dst.length;
      if (k > MAX_STOPS) throw new RequestError(`via must be at most ${MAX_STOPS} stops, got ${k}`);
      if (m * layers > MAX_LAYERED_EDGES) {
        throw new RequestError(`via: ${k} stops on a map of ${count(m)} steps would search ${count(m * layers)} of`
          + ` them, more than ${count(MAX_LAYERED_EDGES)}; give fewer stops`);
      }
      const jump = Array.from({ length: k }, (_, i) => i + 1);
      for (let i = k - 2; i >= 0; i--) if (stops[i + 1] === stops[i]) jump[i] = jump[i + 1];
      const net = Object.create(Network.prototype);
      const N = n * layers, M = m * layers;
      Object.assign(net, {
        where: this.where, n: N, nEidos: this.nEidos, kinds: this.kinds, terrainNames: this.terrainNames,
        width: this.width, index: this.index, heap: new Dijkstra(N),
        ids: [], layer: new Int32Array(N), nodeTerrain: new Int32Array(N), indptr: new Int32Array(N + 1),
        dst: new Int32Array(M), kind: new Int32Array(M), terrain: new Int32Array(M), codes: new Int32Array(M),
        src: new Int32Array(M), pairIndptr: new Int32Array(N + 1),
      });
      const first = new Uint8Array(m), starts = [];
      for (const e of this.pairStart) first[e] = 1;
      let at = 0;
      for (let u = 0; u < n; u++) {
        for (let i = 0; i < layers; i++) {
          const x = u * layers + i;
          net.ids.push(this.ids[u]);
          net.layer[x] = this.layer[u];
          net.nodeTerrain[x] = this.nodeTerrain[u];
          for (let e = this.indptr[u]; e < this.indptr[u + 1]; e++, at++) {
            const v = this.dst[e];
            net.dst[at] = v * layers + (i < k && v === stops[i] ? jump[i] : i);
            net.kind[at] = this.kind[e];
            net.terrain[at] = this.terrain[e];
            net.codes[at] = this.codes[e];
            net.src[at] = x;
            if (first[e]) {
              starts.push(at);
              net.pairIndptr[x + 1] += 1;
            }
          }
          net.indptr[x + 1] = at;
          net.pairIndptr[x + 1] += net.pairIndptr[x];
        }
      }
      net.pairStart = Int32Array.from(starts);
      net.pairDst = Int32Array.from(starts, (e) => net.dst[e]);
      return {
        net, layers,
        start: (u) => u * layers + (k && stops[0] === u ? jump[0] : 0),
        goal: (u) => u * layers + k,
      };
    }

    /** Model.node_index: an Eido or Pousa id to its node. */
    node(id) {
      const k = this.index.get(String(id));
      if (k === undefined) throw new RequestError(`${this.where}: no Eido or Pousa with id ${repr(String(id))}`);
      return k;
    }
  }

  // -- Dijkstra's cheapest costs (search.weighted.dijkstra) ------------------------------------------
  // A binary heap of (distance, node) entries, a node queued again whenever its distance drops and its stale
  // entries skipped.  The order it settles equal distances in decides nothing: a route is the tie rule's, from
  // the costs alone (cheapestPath), as eidomap's is whichever search gave them.
  class Dijkstra {
    constructor(n) {
      this.dist = new Float64Array(n).fill(Infinity);
      this.hd = new Float64Array(64);
      this.hi = new Int32Array(64);
      this.size = 0;
    }

    swap(a, b) {
      const { hd, hi } = this;
      const d = hd[a]; hd[a] = hd[b]; hd[b] = d;
      const i = hi[a]; hi[a] = hi[b]; hi[b] = i;
    }

    push(d, node) {
      if (this.size === this.hd.length) {
        const hd = new Float64Array(2 * this.size), hi = new Int32Array(2 * this.size);
        hd.set(this.hd);
        hi.set(this.hi);
        this.hd = hd;
        this.hi = hi;
      }
      let i = this.size++;
      this.hd[i] = d;
      this.hi[i] = node;
      while (i > 0) {
        const up = (i - 1) >> 1;
        if (!(this.hd[i] < this.hd[up])) break;
        this.swap(i, up);
        i = up;
      }
    }

    pop() {
      const node = this.hi[0], d = this.hd[0];
      this.size -= 1;
      this.swap(0, this.size);
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < this.size && this.hd[l] < this.hd[m]) m = l;
        if (r < this.size && this.hd[r] < this.hd[m]) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
      this.popped = d;
      return node;
    }

    /**
     * One source: dist (inf where not reached within ``limit``) and the nodes reached; ``sparse``: only the
     * nodes reached, ascending, and their distances (no array per node).
     */
    run(indptr, indices, weights, source, limit, sparse = false) {
      const dist = this.dist;  // all inf between runs: only the nodes reached are set, and reset after
      const reached = [source];
      dist[source] = 0;
      this.size = 0;
      this.push(0, source);
      while (this.size) {
        const v = this.pop(), dv = this.popped;
        if (dist[v] < dv) continue;  // a stale entry
        for (let j = indptr[v]; j < indptr[v + 1]; j++) {
          const x = indices[j], next = dv + weights[j];
          if (next <= limit && dist[x] > next) {
            if (dist[x] === Infinity) reached.push(x);
            dist[x] = next;
            this.push(next, x);
          }
        }
      }
      if (sparse) {
        reached.sort((a, b) => a - b);
        const near = Float64Array.from(reached, (k) => dist[k]);
        for (const k of reached) dist[k] = Infinity;
        return { reached, dist: near };
      }
      const out = new Float64Array(dist.length).fill(Infinity);
      for (const k of reached) {
        out[k] = dist[k];
        dist[k] = Infinity;
      }
      return { dist: out, reached };
    }
  }

  // -- dice (eidomap.rules.dice) -----------------------------------------------------------------
  class Dice {
    constructor(n, sides, plus) {
      this.n = n;
      this.sides = sides;
      this.plus = plus;
      if (!(n >= 1 && n <= MAX_DICE && sides >= 1 && sides <= MAX_SIDES && Math.abs(plus) <= MAX_MODIFIER)) {
        throw Dice.refused(String(this));
      }
    }

    static refused(text) {
      return new RequestError(`dice ${repr(text)}: use 1 to ${MAX_DICE} dice of 1 to ${MAX_SIDES} sides and a`
        + ` modifier within \u00b1${MAX_MODIFIER.toLocaleString("en")}`);
    }

    static parse(text) {
      const m = DICE.exec(text);
      if (!m) throw new RequestError(`dice ${repr(text)} is not of the form NdM+K (such as 1d6 or 2d6+1)`);
      if (Math.max(m[1].length, m[2].length, (m[4] || "").length) > C.MAX_DIGITS) throw Dice.refused(text);
      const n = parseInt(m[1] || "1", 10), sides = parseInt(m[2], 10);
      const plus = parseInt(m[4] || "0", 10) * (m[3] === "-" ? -1 : 1);
      return new Dice(n, sides, plus || 0);  // (-0: 0)
    }

    get low() {
      return this.n + this.plus;
    }

    get high() {
      return this.n * this.sides + this.plus;
    }

    checkRoll(roll) {
      if (!isInt(roll) || roll < this.low || roll > this.high) {
        throw new RequestError(`roll ${repr(roll)} is outside the range of ${this} (${this.low} to ${this.high})`);
      }
      return roll;
    }

    /** P(roll = low + i): n uniform dice convolved, as numpy.convolve does. */
    pmf() {
      const one = 1 / this.sides;
      let out = [1];
      for (let k = 0; k < this.n; k++) out = convolve(out, new Array(this.sides).fill(one));
      return out;
    }

    toString() {
      return `${this.n}d${this.sides}${this.plus ? (this.plus > 0 ? "+" : "") + this.plus : ""}`;
    }
  }

  function convolve(a, b) {
    const out = new Float64Array(a.length + b.length - 1);
    for (let i = 0; i < out.length; i++) {
      let s = 0;
      const lo = Math.max(0, i - b.length + 1), hi = Math.min(i, a.length - 1);
      for (let j = lo; j <= hi; j++) s += a[j] * b[i - j];
      out[i] = s;
    }
    return Array.from(out);
  }

  /** rules.dice.budget_pmf: P(budget = b), budget = max(0, roll + VMv). */
  function budgetPmf(dice, vmv) {
    const p = dice.pmf();
    const low = dice.low + vmv;
    const out = new Float64Array(Math.max(dice.high + vmv, 0) + 1);
    for (let i = 0; i < p.length; i++) out[Math.max(low + i, 0)] += p[i];
    return out;
  }

  // -- arrival distributions (eidomap.search.arrival) ---------------------------------------------------
  /** _reach_table's recursion: calls back(k, P(S_k >= t) for t = 0..top+1) for k = 1..turns. */
  function reachColumns(budget, top, turns, back) {
    let s = new Float64Array(top + 2);
    s[0] = 1;
    const B = budget.length;
    const col = new Float64Array(top + 2);
    for (let k = 0; k < turns; k++) {
      const next = new Float64Array(top + 2);
      let over = s[top + 1];
      // numpy.convolve(s[:-1], budget), the part above top summed into the last bin
      for (let i = 0; i < top + B; i++) {
        let v = 0;
        const lo = Math.max(0, i - B + 1), hi = Math.min(i, top);
        for (let j = lo; j <= hi; j++) v += s[j] * budget[i - j];
        if (i <= top) next[i] = v; else over += v;
      }
      next[top + 1] = over;
      s = next;
      const tail = new Float64Array(top + 2);
      let acc = 0;
      for (let t = top + 1; t >= 0; t--) { acc += s[t]; tail[t] = acc; }
      let below = 0;
      for (let t = 0; t < top + 2; t++) {
        const v = tail[t] / (tail[t] + below);
        col[t] = Math.min(Math.max(v, 0), 1);
        below += s[t];
      }
      back(k, col);
    }
  }

  /** search.arrival.arrival_cdf for the last of ``turns`` turns only (reach --turns): P(S_turns >= theta). */
  function arrivalLast(budget, thetas, turns) {
    const cap = turns * (budget.length - 1);  // the most ``turns`` budgets add up to: past it, never (_top)
    let top = 0;
    for (const t of thetas) if (t <= cap && t > top) top = t;
    let last = null;
    reachColumns(budget, top, turns, (k, col) => { if (k === turns - 1) last = col; });
    return Array.from(thetas, (t) => (t <= cap ? last[t] : 0));
  }

  /** search.arrival.arrival_cdf for one threshold and every turn (route under the dice). */
  function arrivalByTurn(budget, theta, turns) {
    const cap = turns * (budget.length - 1) + 1;
    const row = Math.min(theta, cap);
    const out = [];
    reachColumns(budget, row, turns, (k, col) => out.push(col[row]));
    return out;
  }

  /** search.arrival.expected_turns_table at ``top``: E[first k with S_k >= top] (the renewal recursion). */
  function expectedTurns(budget, top) {
    const p0 = budget[0];
    if (p0 >= 1) return top > 0 ? Infinity : 0;
    const m = new Float64Array(top + 1);
    for (let t = 1; t <= top; t++) {
      let dot = 0;
      for (let b = 1; b < budget.length; b++) dot += budget[b] * m[Math.max(t - b, 0)];
      m[t] = (1 + dot) / (1 - p0);
    }
    return m[top];
  }

  // -- thresholds (eidomap.search.weighted) ----------------------------------------------------------
  function stepOffset(w) {
    return Number.isFinite(w) ? (w > EPS ? EPS : -EPS) : Infinity;
  }

  /** weighted._steps_in: the edges into ``target`` and the threshold each gives it (``w``: the edge weights). */
  function stepsIn(net, dist, w, target) {
    const edges = [], need = [];
    for (let e = 0; e < net.dst.length; e++) {
      if (net.dst[e] !== target) continue;
      edges.push(e);
      need.push(Math.ceil(dist[net.src[e]] + stepOffset(w[e])));
    }
    return { edges, need };
  }

  /** threshold_to: the least sum of budgets with which the actor has stepped into ``target``. */
  function thresholdTo(net, dist, w, target) {
    return Math.min(Infinity, ...stepsIn(net, dist, w, target).need);
  }

  /** threshold_steps: the edges into ``target`` that give it its arrival threshold, in the network's order. */
  function thresholdSteps(net, dist, w, target) {
    const { edges, need } = stepsIn(net, dist, w, target), theta = Math.min(Infinity, ...need);
    return Number.isFinite(theta) ? edges.filter((e, i) => need[i] === theta) : [];
  }

  /** routing._soonest_edges: under the debt rule, of the routes that arrive soonest whatever the rolls, the
   * cheapest, the tie rule's. */
  function soonestEdges(net, w, dist, s, g) {
    return net.cheapestPath(w, dist, s, g, thresholdSteps(net, dist, w, g));
  }

  /** node_thresholds of one source, every node. */
  function nodeThresholds(net, dist, source, table) {
    const low = new Float64Array(net.n).fill(Infinity);
    for (let e = 0; e < net.dst.length; e++) {
      const need = dist[net.src[e]] + stepOffset(table[net.codes[e]]);
      if (need < low[net.dst[e]]) low[net.dst[e]] = need;
    }
    for (let k = 0; k < net.n; k++) low[k] = Math.ceil(low[k]);
    low[source] = 0;
    return low;
  }

  // -- the step rule, turn by turn (eidomap.search.turns) ---------------------------------------------
  function budgetAt(budgets, cycle, t) {
    const n = budgets.length;
    if (n === 0) return -1;
    if (t <= n) return budgets[t - 1];
    if (cycle) return budgets[(t - 1) % n];
    return -1;
  }

  function canStart(left, c, carry) {
    return c <= EPS || left + EPS >= c || (carry && left > EPS);
  }

  /** advance: a step of cost c, free at turn t with p points left -> [start, end, left]. */
  function advance(t, p, c, budgets, cycle, carry) {
    if (c <= EPS) return [t, t, p];
    if (p + EPS >= c) return [t, t, Math.max(p - c, 0)];
    const n = budgets.length;
    let start = -1, debt = c, idle = 0;
    if (canStart(p, c, carry)) {
      start = t;
      debt = c - p;
    }
    for (;;) {
      t += 1;
      const b = budgetAt(budgets, cycle, t);
      if (b < 0) return [start, -1, 0];
      if (start < 0) {
        if (b + EPS >= c) return [t, t, Math.max(b - c, 0)];
        if (canStart(b, c, carry)) {
          start = t;
          debt = c - b;
          idle = 0;
          continue;
        }
      } else if (b + EPS >= debt) {
        return [start, t, Math.max(b - debt, 0)];
      } else if (b > EPS) {
        debt -= b;
        idle = 0;
        continue;
      }
      idle += 1;
      if (cycle && idle > n) return [start, -1, 0];
    }
  }

  function before(t1, p1, t2, p2) {
    return t1 < t2 || (t1 === t2 && p1 > p2 + EPS);
  }

  /** earliest_labels: the turn the actor can first be in each node (its array-kept binary heap too). */
  function earliestArrivals(net, w, source, budgets, cycle, carry) {
    const n = net.n;
    const arrive = new Int32Array(n).fill(-1), turn = new Int32Array(n).fill(-1);
    const left = new Float64Array(n), done = new Uint8Array(n);
    const cap = net.dst.length + 1;
    const ht = new Float64Array(cap), hp = new Float64Array(cap), hn = new Int32Array(cap);
    let size = 0;
    const swap = (i, j) => {
      [ht[i], ht[j]] = [ht[j], ht[i]];
      [hp[i], hp[j]] = [hp[j], hp[i]];
      [hn[i], hn[j]] = [hn[j], hn[i]];
    };
    const push = (t, p, node) => {
      let i = size;
      ht[i] = t; hp[i] = p; hn[i] = node;
      while (i > 0) {
        const parent = Math.floor((i - 1) / 2);
        if (!before(ht[i], hp[i], ht[parent], hp[parent])) break;
        swap(i, parent);
        i = parent;
      }
      size += 1;
    };
    const pop = () => {
      const out = [ht[0], hp[0], hn[0]];
      size -= 1;
      ht[0] = ht[size]; hp[0] = hp[size]; hn[0] = hn[size];
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && before(ht[child + 1], hp[child + 1], ht[child], hp[child])) child += 1;
        if (!before(ht[child], hp[child], ht[i], hp[i])) break;
        swap(i, child);
        i = child;
      }
      return out;
    };
    const b1 = budgetAt(budgets, cycle, 1);
    arrive[source] = 0;
    if (b1 < 0) {
      turn[source] = 0;
      return arrive;
    }
    turn[source] = 1;
    left[source] = b1;
    push(1, b1, source);
    while (size > 0) {
      const [t, p, u] = pop();
      if (done[u] || t !== turn[u] || p !== left[u]) continue;
      done[u] = 1;
      for (let e = net.indptr[u]; e < net.indptr[u + 1]; e++) {
        const c = w[e], v = net.dst[e];
        if (done[v] || !(c < Infinity)) continue;
        const [s, f, rest] = advance(t, p, c, budgets, cycle, carry);
        if (s >= 0 && (arrive[v] < 0 || s < arrive[v])) arrive[v] = s;
        if (f >= 0 && (turn[v] < 0 || before(f, rest, turn[v], left[v]))) {
          turn[v] = f;
          left[v] = rest;
          push(f, rest, v);
        }
      }
    }
    return arrive;
  }

  /** soonest_route: the route that arrives soonest, then costs least, then the tie rule's -> edges or null. */
  function soonestRoute(net, w, source, goal, budgets, carry, debt = 0) {
    const b1 = budgetAt(budgets, false, 1);
    if (source === goal) return [];
    if (b1 < 0) return null;
    const [, t0, left0] = advance(1, b1, debt, budgets, false, true);  // a debt carried in, paid first
    if (t0 < 0) return null;
    const kept = new Map();  // per node: the [cost, steps] of the labels kept
    const node = [source], parent = [[-1, -1]];  // per label: its node, and [parent label, edge into it]
    const heap = new TupleHeap();
    heap.push([t0, -left0, 0, 0, source, 0]);
    let best = null;  // [arrival, cost, steps, label, edge]
    while (heap.size) {
      const [t, q, cost, steps, u, first] = heap.pop();
      if (best !== null && t > best[0]) break;
      let lab = first;
      while (heap.size && sameLabel(heap.items[0], t, q, cost, steps, u)) {  // another way: the rule's kept
        const other = heap.pop()[5];
        if (ahead(node, parent, ...parent[other], ...parent[lab])) lab = other;
      }
      if (beaten(kept.get(u), cost, steps)) continue;
      if (!kept.has(u)) kept.set(u, []);
      kept.get(u).push([cost, steps]);
      for (let e = net.indptr[u]; e < net.indptr[u + 1]; e++) {
        const c = w[e], v = net.dst[e];
        if (!(c < Infinity)) continue;
        const [s, f, rest] = advance(t, -q, c, budgets, false, carry);
        if (s < 0) continue;
        if (v === goal) {
          const way = [s, cost + c, steps + 1, lab, e];
          if (best === null || sooner(node, parent, way, best)) best = way;
        } else if (f >= 0 && !beaten(kept.get(v), cost + c, steps + 1)) {
          node.push(v);
          parent.push([lab, e]);
          heap.push([f, -rest, cost + c, steps + 1, v, node.length - 1]);
        }
      }
    }
    if (best === null) return null;
    const edges = [best[4]];
    for (let lab = best[3]; lab > 0;) {
      const [up, e] = parent[lab];
      edges.push(e);
      lab = up;
    }
    return edges.reverse();
  }

  function sameLabel(entry, t, q, cost, steps, u) {
    return entry[0] === t && entry[1] === q && entry[2] === cost && entry[3] === steps && entry[4] === u;
  }

  /** turns._beaten: a label beaten by one its node kept before (cheaper, or as cheap in fewer steps). */
  function beaten(kept, cost, steps) {
    return kept !== undefined && kept.some(([k, n]) => k < cost - EPS || (k <= cost + EPS && n < steps));
  }

  /** turns._sooner: a way into the goal [arrival, cost, steps, label, edge] that beats ``best``. */
  function sooner(node, parent, way, best) {
    if (way[0] !== best[0]) return way[0] < best[0];
    if (Math.abs(way[1] - best[1]) > EPS) return way[1] < best[1];
    if (way[2] !== best[2]) return way[2] < best[2];
    return ahead(node, parent, way[3], way[4], best[3], best[4]);
  }

  /** turns._ahead: the way of label a then edge ea before that of b then eb under the tie rule (read back, the
   * first node where they differ is the lesser; the same nodes all the way, the first edge where they differ). */
  function ahead(node, parent, a, ea, b, eb) {
    let edge = 0;
    for (;;) {
      if (!edge && ea !== eb) edge = ea < eb ? -1 : 1;
      if (a === b) return edge < 0;
      if (node[a] !== node[b]) return node[a] < node[b];
      [a, ea] = parent[a];
      [b, eb] = parent[b];
    }
  }

  /** simulate: walk the steps under the rolls, as early as the rule allows. */
  function simulate(costs, rolls, budgets, carry, owed = 0) {
    const turns = [];
    let k = 0, debt = owed;
    let arrival = costs.length ? -1 : 0, crossed = !costs.length && debt <= EPS ? 0 : -1;
    for (let i = 0; i < rolls.length; i++) {
      const t = i + 1, budget = budgets[i];
      if (k === costs.length && debt <= EPS) break;
      const pay = Math.min(debt, budget);
      debt -= pay;
      let left = budget - pay;
      const taken = [];
      while (k < costs.length && debt <= EPS) {
        const c = costs[k];
        if (!canStart(left, c, carry)) break;
        const spend = Math.min(c, left);
        debt = Math.max(c - spend, 0);
        left = Math.max(left - spend, 0);
        taken.push(k);
        k += 1;
        if (k === costs.length) arrival = t;
      }
      if (k === costs.length && debt <= EPS && crossed < 0) crossed = t;
      turns.push({ turn: t, roll: rolls[i], budget, steps: taken, spent: budget - left, lost: left, debt, end: k - 1 });
    }
    return { turns, arrival, crossed };
  }

  // -- the exact roll-by-roll policy under forbid (eidomap.search.policy) ----------------------------
  const WHY = "give rolls=..., or use the debt rule (partial='carry')";
  const count = (n) => n.toLocaleString("en");

  /** within_turn_pairs: every (u, v, d) with v within d <= bmax of u, u then v ascending.  A search from each u,
   * over buckets when the steps a turn can pay cost whole numbers and a turn is at most RING_BUDGET (ball_pairs),
   * else over the heap; each costs what its ball holds.  The last actor's pairs are kept on the network: the
   * page's next question for the same actor (the same pair weights and turn) skips the searches. */
  function withinTurnPairs(net, w, bmax) {
    if (net.n > MAX_POLICY_NODES) {
      throw new RequestError(`the exact roll-by-roll policy handles maps up to ${count(MAX_POLICY_NODES)} nodes`
        + ` (this one has ${count(net.n)}); ${WHY}`);
    }
    const n = net.n, pw = net.pairWeights(w), kept = net.turnPairs;
    if (kept && kept.bmax === bmax && kept.pw.every((c, i) => c === pw[i])) return kept.pairs;
    const cap = bmax + EPS >= 0 && bmax + EPS <= RING_BUDGET ? Math.floor(bmax + EPS) : -1;
    const ball = cap >= 0 && pw.every((c) => !(c <= cap) || (c >= 0 && Number.isInteger(c)))
      ? ringBalls(net, pw, cap) : (s) => net.heap.run(net.pairIndptr, net.pairDst, pw, s, bmax + EPS, true);
    let us = new Int32Array(Math.min(MAX_POLICY_PAIRS, 16 * n) + 1), vs = new Int32Array(us.length);
    let ds = new Float64Array(us.length), held = 0;
    for (let s = 0; s < n; s++) {
      const { reached, dist } = ball(s);
      if (held + reached.length > MAX_POLICY_PAIRS) {
        throw new RequestError(`the exact roll-by-roll policy would hold more than ${count(MAX_POLICY_PAIRS)} pairs of`
          + ` nodes within a turn's reach (${C.g(bmax)} PtMv) on this map; ${WHY}`);
      }
      if (held + reached.length > us.length) {
        const room = Math.min(2 * us.length + reached.length, MAX_POLICY_PAIRS + 1);
        [us, vs, ds] = [us, vs, ds].map((a) => {
          const more = new a.constructor(room);
          more.set(a);
          return more;
        });
      }
      for (let i = 0; i < reached.length; i++) {
        us[held] = s;
        vs[held] = reached[i];
        ds[held++] = dist[i];
      }
    }
    const pairs = { u: us.subarray(0, held), v: vs.subarray(0, held), d: ds.subarray(0, held) };
    net.turnPairs = { bmax, pw, pairs };
    return pairs;
  }

  /** policy.ball_pairs' search: the ball of each source within ``cap`` (whole costs ``pw``; none past ``cap`` is
   * taken) over Dial's buckets, a list a key within reach, nodes moved between them (no stale entries):
   * {reached (ascending), dist}, both valid until the next call. */
  function ringBalls(net, pw, cap) {
    const n = net.n, indptr = net.pairIndptr, dst = net.pairDst;
    const head = new Int32Array(cap + 1).fill(-1), after = new Int32Array(n), before = new Int32Array(n);
    const key = new Int32Array(n).fill(-1), reached = new Int32Array(Math.max(n, 1)), dist = new Float64Array(n);
    const link = (x, k) => {
      const h = head[k];
      if (h >= 0) before[h] = x;
      after[x] = h;
      before[x] = -1;
      head[k] = x;
    };
    return (s) => {
      key[s] = 0;
      link(s, 0);
      reached[0] = s;
      let got = 1, queued = 1, k = 0;
      while (queued > 0) {
        while (head[k] < 0) k++;
        const u = head[k];
        head[k] = after[u];
        if (after[u] >= 0) before[after[u]] = -1;
        queued--;
        for (let e = indptr[u]; e < indptr[u + 1]; e++) {
          const c = pw[e], x = dst[e], next = k + c, old = key[x];
          if (!(next <= cap) || (old >= 0 && next >= old)) continue;  // a settled node (old <= k) never passes
          if (old < 0) {
            reached[got++] = x;
            queued++;
          } else {  // out of its bucket
            if (after[x] >= 0) before[after[x]] = before[x];
            if (before[x] >= 0) after[before[x]] = after[x];
            else head[old] = after[x];
          }
          key[x] = next;
          link(x, next);
        }
      }
      const ball = reached.subarray(0, got);
      ascending(ball);
      for (let i = 0; i < got; i++) {
        dist[i] = key[ball[i]];
        key[ball[i]] = -1;
      }
      return { reached: ball, dist };
    };
  }

  /** policy.ascending: a short ball sorted by insertion, a long one by the typed array's sort. */
  function ascending(a) {
    if (a.length > 32) {
      a.sort();
      return;
    }
    for (let i = 1; i < a.length; i++) {
      const x = a[i];
      let j = i - 1;
      for (; j >= 0 && a[j] > x; j--) a[j + 1] = a[j];
      a[j + 1] = x;
    }
  }

  /** policy.heap_push: (key, item) into the binary heap of the first ``size`` entries; the new size. */
  function heapPush(keys, items, size, key, item) {
    let i = size;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!(key < keys[parent] || (key === keys[parent] && item < items[parent]))) break;
      keys[i] = keys[parent];
      items[i] = items[parent];
      i = parent;
    }
    keys[i] = key;
    items[i] = item;
    return size + 1;
  }

  /** policy.heap_pop: the first entry (the least key, of equal keys the least item) taken off; the new size. */
  function heapPop(keys, items, size) {
    size -= 1;
    const key = keys[size], item = items[size];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      const right = child + 1;
      if (right < size && (keys[right] < keys[child] || (keys[right] === keys[child] && items[right] < items[child]))) {
        child = right;
      }
      if (!(keys[child] < key || (keys[child] === key && items[child] < item))) break;
      keys[i] = keys[child];
      items[i] = items[child];
      i = child;
    }
    keys[i] = key;
    items[i] = item;
    return size;
  }

  /** search.arrival.counted: the law as whole counts of equally likely rolls, where the faces can be counted. */
  function counted(law) {
    let least = Infinity, total = 0;
    for (const p of law) if (p > 0 && p < least) least = p;
    const counts = law.map((p) => Math.round(p / least));
    for (const c of counts) total += c;
    const whole = law.every((p, k) => Math.abs(counts[k] * least - p) <= 1e-9 * Math.abs(p));
    return whole && total < 2 ** 20 ? counts : law;
  }

  /** _check_cells: tables of ``nodes`` x ``columns`` past MAX_POLICY_CELLS are refused before they are made. */
  function checkCells(nodes, columns, what) {
    if (nodes * columns > MAX_POLICY_CELLS) {
      throw new RequestError(`the exact roll-by-roll policy would hold ${count(nodes)} nodes x ${count(columns)} ${what},`
        + ` more than ${count(MAX_POLICY_CELLS)}; ${WHY}`);
    }
  }

  /** _threshold_value of one row: solve E = 1 + sum_b P(b) min(E, best_b), P(b) = weights[b] / their total. */
  function thresholdValue(best, at, weights) {
    let sum = 0, den = 0, out = Infinity, total = 0;
    for (let k = weights.length - 1; k >= 0; k--) total += weights[k];
    for (let k = weights.length - 1; k >= 0; k--) {
      sum += weights[k] * best[at + k];
      den += weights[k];
      const v = (total + sum) / den;
      if (v < out) out = v;  // NaN (never the minimum) is left out, as nanmin of inf-filled NaNs
    }
    return out;
  }

  /** policy_values (settle_values): expected turns to ``goal`` of the optimal forbid policy, nodes settled in
   * increasing value (of equal values the least node first) until ``start`` is settled; the budgets that reach
   * a settled node from ``s`` are the largest ones, from ``first[s]`` on, and only those below are tried. */
  function policyValues(net, pairs, goal, budgets, probs, start) {
    const n = net.n, nb = budgets.length;
    const { u, v, d } = pairs;
    // stable by v: for each target, its pairs in their order
    const vptr = new Int32Array(n + 1);
    for (let i = 0; i < v.length; i++) vptr[v[i] + 1] += 1;
    for (let x = 0; x < n; x++) vptr[x + 1] += vptr[x];
    const fill = vptr.slice(0, n), into = new Int32Array(v.length);
    for (let i = 0; i < v.length; i++) into[fill[v[i]]++] = i;
    const best = new Float64Array(n * nb).fill(Infinity), arg = new Int32Array(n * nb).fill(-1);
    const value = new Float64Array(n).fill(Infinity), tentative = new Float64Array(n).fill(Infinity);
    const final = new Uint8Array(n), mark = new Int32Array(n).fill(-1), touched = new Int32Array(n);
    const first = new Int32Array(n).fill(nb);  // the budgets that reach a settled node: first[s] and more
    const keys = new Float64Array(u.length + 1), items = new Int32Array(u.length + 1);
    const weights = counted(probs);
    tentative[goal] = 0;
    let size = heapPush(keys, items, 0, 0, goal);
    while (size > 0) {
      const e = keys[0], x = items[0];
      size = heapPop(keys, items, size);
      if (final[x] || e !== tentative[x]) continue;
      final[x] = 1;
      value[x] = e;
      if (x === start) break;
      let count = 0;
      for (let j = vptr[x]; j < vptr[x + 1]; j++) {
        const i = into[j], s = u[i];
        let k = first[s];
        for (; k > 0 && budgets[k - 1] + EPS >= d[i]; k--) {
          best[s * nb + k - 1] = e;
          arg[s * nb + k - 1] = x;
        }
        if (k < first[s]) {
          first[s] = k;
          if (mark[s] !== x && !final[s]) {
            mark[s] = x;
            touched[count++] = s;
          }
        }
      }
      for (let j = 0; j < count; j++) {
        const s = touched[j], t = thresholdValue(best, s * nb, weights);
        if (t < tentative[s]) {
          tentative[s] = t;
          size = heapPush(keys, items, size, t, s);
        }
      }
    }
    return { value, best, arg };
  }

  /** _likeliest_course: the turn ends the policy most likely goes through, waiting turns left out. */
  function likeliestCourse(move, nb, probs, value, start, goal) {
    const logp = new Map([[start, 0]]);
    const parent = new Map();
    const heap = new TupleHeap();
    heap.push([-value[start], start]);
    const seen = new Set([start]);
    while (heap.size) {
      const [, x] = heap.pop();
      if (x === goal) break;
      const row = Array.from(move.subarray(x * nb, x * nb + nb));
      let stay = 0;
      for (let k = 0; k < nb; k++) if (row[k] === x) stay += probs[k];
      const ys = Array.from(new Set(row)).filter((y) => y !== x).sort((a, b) => a - b);
      for (const y of ys) {
        let q = 0;
        for (let k = 0; k < nb; k++) if (row[k] === y) q += probs[k];
        q /= 1 - stay;
        const cand = logp.get(x) + Math.log(q);
        if (cand > (logp.has(y) ? logp.get(y) : -Infinity) + 1e-12) {
          logp.set(y, cand);
          parent.set(y, x);
        }
        if (!seen.has(y)) {
          seen.add(y);
          heap.push([-value[y], y]);
        }
      }
    }
    const course = [goal];
    while (course[course.length - 1] !== start) course.push(parent.get(course[course.length - 1]));
    return course.reverse();
  }

  /** forbid_policy: expected turns, arrival distribution and likeliest course of the optimal policy. */
  function forbidPolicy(net, w, start, goal, budgets, probs, maxTurns) {
    const n = net.n, nb = budgets.length;
    checkCells(n, nb, "budgets");
    const pairs = withinTurnPairs(net, w, budgets[nb - 1]);
    const { value, best, arg } = policyValues(net, pairs, goal, budgets, probs, start);
    if (!Number.isFinite(value[start])) return { expected: Infinity, p: [], worst: null, course: [] };
    const move = new Int32Array(n * nb);
    for (let x = 0; x < n; x++) {
      for (let k = 0; k < nb; k++) move[x * nb + k] = best[x * nb + k] < value[x] - 1e-12 ? arg[x * nb + k] : x;
    }
    // roll sequences counted, and P(arrived) what has arrived over all that was pushed (1 once none is left)
    const weights = counted(probs), scale = pairwiseSum(Float64Array.from(weights));
    let mass = new Float64Array(n), next = new Float64Array(n), support = Int32Array.of(start);
    mass[start] = 1;
    let arrived = 0;
    const p = [];
    // numpy's bincount per budget, added in turn into the next turn's mass: only the nodes with mass add to it,
    // in their order, and only the nodes they move to change (``part`` and ``next`` are 0 everywhere else)
    const part = new Float64Array(n), moved = new Int32Array(n), hit = new Int32Array(n);
    const inPart = new Int32Array(n).fill(-1), inNext = new Int32Array(n).fill(-1);
    let tag = 0;
    for (let turn = 0; turn < maxTurns; turn++) {
      let hits = 0;
      for (let k = 0; k < nb; k++, tag++) {
        const wk = weights[k];
        let count = 0;
        for (let i = 0; i < support.length; i++) {
          const x = support[i], y = move[x * nb + k];
          if (inPart[y] !== tag) {
            inPart[y] = tag;
            moved[count++] = y;
          }
          part[y] += mass[x] * wk;
        }
        for (let i = 0; i < count; i++) {
          const y = moved[i];
          if (inNext[y] !== turn) {
            inNext[y] = turn;
            hit[hits++] = y;
          }
          next[y] += part[y];
          part[y] = 0;
        }
      }
      arrived = arrived * scale + next[goal];
      next[goal] = 0;
      const left = pairwiseSum(next);
      p.push(arrived / (arrived + left));
      for (let i = 0; i < support.length; i++) mass[support[i]] = 0;
      [mass, next] = [next, mass];
      support = hit.slice(0, hits).filter((y) => mass[y] !== 0).sort();
      if (left <= 1e-12 * (arrived + left)) break;
      if (arrived + left > 1e200) {  // counted past what a double holds: probabilities from here on
        const all = arrived + left;
        for (let i = 0; i < support.length; i++) mass[support[i]] /= all;
        arrived /= all;
      }
    }
    const worst = support.length ? null : p.length;
    return { expected: value[start], p, worst, course: likeliestCourse(move, nb, probs, value, start, goal) };
  }

  /** routing._course_edges: the cheapest steps from each turn end of ``course`` to the next; each search stops past
   * ``reach`` (the largest budget: every turn end is within a turn's reach of the one before), beyond every node
   * cheapestPath reads (those within EPS of the next turn end's cost, and the tight steps into them). */
  function courseEdges(net, w, course, reach) {
    const pw = net.pairWeights(w), edges = [];
    for (let i = 1; i < course.length; i++) {
      const here = course[i - 1];
      const { dist } = net.heap.run(net.pairIndptr, net.pairDst, pw, here, reach + 3 * EPS);
      edges.push(...net.cheapestPath(w, dist, here, course[i]));
    }
    return edges;
  }

  /** numpy's sum of a float array: pairwise, in blocks of 8 below 128 (its rounding, near a cut-off). */
  function pairwiseSum(a, lo = 0, hi = a.length) {
    const n = hi - lo;
    if (n < 8) {
      let s = -0;
      for (let i = lo; i < hi; i++) s += a[i];
      return s;
    }
    if (n <= 128) {
      const r = [a[lo], a[lo + 1], a[lo + 2], a[lo + 3], a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]];
      let i = lo + 8;
      for (; i < hi - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += a[i + j];
      let s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
      for (; i < hi; i++) s += a[i];
      return s;
    }
    let half = Math.floor(n / 2);
    half -= half % 8;
    return pairwiseSum(a, lo, lo + half) + pairwiseSum(a, lo + half, hi);
  }

  /** forbid_reach: the best probability of being at each target within ``turns`` turns (columns apart). */
  function forbidReach(net, w, start, targets, budgets, probs, turns, maxWork = 4e9) {
    const g = targets.length;
    checkCells(net.n, g, "targets");
    const { u, v, d } = withinTurnPairs(net, w, budgets[budgets.length - 1]);
    if (u.length * g * turns > maxWork) {
      throw new RequestError(`turns=${turns} under partial='forbid' would need about ${C.sci(u.length * g * turns, 1)}`
        + " operations on this map; use fewer turns, the debt rule, or route for single goals");
    }
    const n = net.n, nb = budgets.length;
    const bands = [];
    for (let k = 0; k < nb; k++) {
      const lower = k ? budgets[k - 1] : -Infinity, band = [];
      for (let i = 0; i < d.length; i++) if (d[i] > lower + EPS && d[i] <= budgets[k] + EPS) band.push(i);
      bands.push(band);
    }
    const out = new Float64Array(g);
    const weights = counted(probs), scale = pairwiseSum(Float64Array.from(weights));  // a sure target: 1 exactly
    const chunk = Math.max(1, Math.min(g, Math.floor(4e6 / Math.max(n, 1))));  // targets are independent
    for (let c0 = 0; c0 < g; c0 += chunk) {
      const cw = Math.min(chunk, g - c0);
      let value = new Float64Array(n * cw);
      for (let j = 0; j < cw; j++) value[targets[c0 + j] * cw + j] = 1;
      const reach = new Float64Array(n * cw);
      for (let t = 0; t < turns; t++) {
        reach.fill(0);
        const next = new Float64Array(n * cw);
        for (let k = 0; k < nb; k++) {
          for (const i of bands[k]) {
            const a = u[i] * cw, b = v[i] * cw;
            for (let j = 0; j < cw; j++) if (value[b + j] > reach[a + j]) reach[a + j] = value[b + j];
          }
          const wk = weights[k];
          for (let x = 0; x < n * cw; x++) next[x] += wk * reach[x];
        }
        for (let x = 0; x < n * cw; x++) next[x] /= scale;
        for (let j = 0; j < cw; j++) next[targets[c0 + j] * cw + j] = 1;
        value = next;
      }
      for (let j = 0; j < cw; j++) out[c0 + j] = value[start * cw + j];
    }
    return out;
  }

  // -- the catalog's actors (eidomap.rules.eido.actor) -------------------------------------------------
  class Catalog {
    constructor(d) {
      this.names = d.species.names;
      this.vmv = d.species.vmv;
      this.labels = d.species.labels;
      const all = C.array(d.species.tables);
      const size = d.kinds.length * (d.terrain_names.length + 1);
      this.tables = new Map(this.names.map((s, k) => [s, all.subarray(k * size, (k + 1) * size)]));
      this.size = size;
    }

    get(name) {
      if (!this.tables.has(name)) {
        const known = this.names.slice().sort().join(", ");
        throw new RequestError(`unknown species ${repr(name)} (known: ${known})`);
      }
      return name;
    }

    /** actor(catalog, species, mount=..., party=..., dice=...). */
    actor(species, mount, party, dice) {
      const mover = this.get(mount || species);
      this.get(species);
      const members = [mover, ...party.map((p) => this.get(p))];
      const table = new Float64Array(this.size).fill(-Infinity);
      for (const s of members) {
        const t = this.tables.get(s);
        for (let i = 0; i < this.size; i++) if (!(t[i] <= table[i])) table[i] = t[i];
      }
      const vmv = Math.min(...members.map((s) => this.vmv[this.names.indexOf(s)]));
      const name = species + (mount ? ` on ${mount}` : "") + party.map((p) => ` with ${p}`).join("");
      dice = typeof dice === "string" ? Dice.parse(dice) : dice;
      if (!(dice instanceof Dice)) throw new RequestError(`dice must be a Dice or text such as '2d6+1', got ${repr(dice)}`);
      if (dice.high + vmv <= 0) {  // every turn gives 0 PtMv: no step with a cost ever starts
        throw new RequestError(`${name} cannot move: with dice ${dice} and VMv ${vmv} no turn gives a PtMv (the`
          + ` highest roll plus VMv is ${dice.high + vmv})`);
      }
      return { name, vmv, table, dice, largest: Math.max(dice.high + vmv, 0) };
    }
  }

  // -- route and reach (eidomap.answers.routing) --------------------------------------------------------------
  /** routing._beyond_horizon under forbid, at the page's horizon of MAX_TURNS turns. */
  function beyondHorizon(goal, cost, high, fewest) {
    const turns = `${MAX_TURNS.toLocaleString("en")} turns`;
    const away = `${goal} is ${C.g(cost, 10, true)} PtMv away and a turn gives at most ${high}`;
    if (cost > MAX_TURNS * high) return `${away}: more than ${turns}`;
    if (fewest > MAX_TURNS) {
      return `${away}, a step never split between two turns: ${fewest.toLocaleString("en")} turns at the least,`
        + ` more than ${turns}`;
    }
    return `the play that arrives soonest on average takes more than ${turns} to ${goal}, even with the highest`
      + ` rolls; another play can arrive in ${fewest.toLocaleString("en")} (reach with turns=`
      + `${MAX_TURNS.toLocaleString("en")} gives its best chance)`;
  }

  class Planner {
    constructor(data) {
      this.data = data;
      this.net = new Network(data);
      this.catalog = new Catalog(data);
      this.names = new Map(data.names);
      this.pousaSet = new Set(data.node_ids.slice(data.n_eidos, data.n_eidos + data.n_pousas));
      this.defaultSpecies = data.default_species;
    }

    /** The actor of ``options`` (the command line's names: species, mount, with, dice). */
    actorOf(o) {
      const party = o.with === undefined || o.with === null ? [] : Array.isArray(o.with) ? o.with
        : String(o.with).split(",").map((s) => s.trim()).filter(Boolean);
      return this.catalog.actor(o.species === undefined ? this.defaultSpecies : o.species, o.mount || null, party,
        o.dice === undefined ? "1d6" : o.dice);
    }

    static partial(o) {
      const p = o.partial === undefined ? "carry" : o.partial;
      if (p !== "carry" && p !== "forbid") throw new RequestError(`partial must be 'carry' or 'forbid', got ${repr(p)}`);
      return p;
    }

    /** plan_table: under forbid a step dearer than the largest budget is never planned. */
    static planTable(a, carry) {
      if (carry) return a.table;
      return a.table.map((w) => (w > a.largest + EPS ? Infinity : w));
    }

    steps(start, edges, weightOf, net = this.net) {
      const out = [{ node: net.ids[start], kind: "start", cost: 0 }];
      for (const e of edges) out.push({ node: net.ids[net.dst[e]], kind: net.kinds[net.kind[e]], cost: weightOf(e) });
      return out;
    }

    entered(v) {
      const net = this.net;
      if (net.layer[v] === 0) return net.terrainNames[net.nodeTerrain[v]];
      return net.layer[v] === 1 ? "the roads" : "the fountains (no teleport gift)";
    }

    /** routing.unreachable_reason: one sentence on why ``goal`` cannot be reached. */
    reason(a, start, goal, carry) {
      const net = this.net;
      const raw = net.edgeWeights(a.table);
      const plan = carry ? raw : raw.map((w) => (w > a.largest + EPS ? Infinity : w));
      const blocked = (e) => !Number.isFinite(plan[e]);
      const toll = plan.map((w) => (Number.isFinite(w) ? 1e-6 : 1.0));
      const { dist } = net.dijkstra(toll, start);
      const goalId = net.ids[goal];
      if (!Number.isFinite(dist[goal])) {
        return `no border, road or teleport leads from ${net.ids[start]} to ${goalId} at all`;
      }
      const edges = net.cheapestPath(toll, dist, start, goal).filter(blocked);
      const words = (names) => (names.length === 1 ? names[0]
        : names.slice(0, -1).join(", ") + " or " + names[names.length - 1]);
      // (a step off the start's Pousa into a terrain the unit enters is closed by the roads, not by that terrain)
      const border = net.kinds.indexOf("border") * net.width, alight = net.kinds.indexOf("alight");
      const offRoads = edges.filter((e) => net.src[e] === start && net.kind[e] === alight
        && Number.isFinite(a.table[border + net.nodeTerrain[net.dst[e]]]));
      const closed = [...new Set(edges.filter((e) => !Number.isFinite(raw[e]) && !offRoads.includes(e))
        .map((e) => this.entered(net.dst[e])))].filter((w) => !(offRoads.length && w === "the roads"));
      const dear = edges.filter((e) => Number.isFinite(raw[e]));
      const cannot = offRoads.length ? [`use the roads, where its start ${net.ids[start]} lies`] : [];
      if (closed.length) cannot.push(`enter ${words(closed)}`);
      const parts = cannot.length ? [`${a.name} cannot ${cannot.join(", and cannot ")}`] : [];
      if (dear.length) {
        const names = [...new Set(dear.map((e) => this.entered(net.dst[e])))];
        const costs = dear.map((e) => raw[e]);
        const low = Math.min(...costs), high = Math.max(...costs);
        const cost = low === high ? `${C.g(low)} PtMv` : `${C.g(low)} PtMv or more`;
        parts.push(`under forbid a step into ${words(names)} costs ${cost}, more than the ${a.largest} a turn can give`);
      }
      let own = true;
      for (let e = 0; e < net.dst.length; e++) if (net.dst[e] === goal && Number.isFinite(plan[e])) own = false;
      return parts.join("; ") + (own ? `: ${this.itself(goal, goalId)}` : `: ${goalId} lies beyond`);
    }

    /** routing._itself: the goal's own way in (its terrain, the roads or a fountain). */
    itself(v, name) {
      const net = this.net;
      if (net.layer[v] === 0) return `the terrain of ${name} is ${this.entered(v)}`;
      return net.layer[v] === 1 ? `${name} lies on the roads` : `${name} is a fountain`;
    }

    /** routing.route: the answer, as Route.as_dict gives it (no infinite number: None). */
    route(from, to, o = {}) {
      const out = this.plan(from, to, o);
      for (const key of ["total_cost", "cheapest_cost", "expected_turns"]) {
        if (out[key] !== null && !Number.isFinite(out[key])) out[key] = null;
      }
      return out;
    }

    plan(from, to, o) {
      const partial = Planner.partial(o);
      const carry = partial === "carry";
      const a = this.actorOf(o);
      const stops = Planner.stops(o.via);
      const debt = Planner.debt(o.debt, carry);
      // routing.route checks the rolls at the boundary, before the search: a goal out of reach is no excuse
      const played = o.rolls !== undefined && o.rolls !== null ? Planner.budgets(a, o.rolls) : null;
      const table = Planner.planTable(a, carry);
      const ends = [this.net.node(from), this.net.node(to)];
      const at = stops.map((v) => this.net.node(v));
      let net = this.net, s = ends[0], g = ends[1], layers = 1;
      if (at.length) {  // the journey through the stops: one route on the network layered by the stops passed
        const layered = this.net.throughStops(at);
        [net, layers, s, g] = [layered.net, layered.layers, layered.start(s), layered.goal(g)];
      }
      const w = net.edgeWeights(table);
      const { dist } = net.dijkstra(w, s);
      const out = {
        actor: a.name, partial, reachable: Number.isFinite(dist[g]), total_cost: null, cheapest_cost: null,
        path: [], turns: [], arrival_turn: null, crossed_turn: null, p_by_turn: [], expected_turns: null,
        best_turns: null, worst_turns: null, dice: String(a.dice), vmv: a.vmv, reason: null,
        via: stops, debt, legs: [], from: String(from), to: String(to),
      };
      if (!out.reachable) {
        out.reason = this.legReason(a, [ends[0], ...at, ends[1]], carry);
        return out;
      }
      out.cheapest_cost = dist[g];
      const legs = (edges, path, turns) => Planner.legs([String(from), ...stops, String(to)], net, layers, s, edges,
        path, turns);
      if (played !== null) return this.withRolls(out, net, w, s, g, played, dist, carry, debt, legs);
      const pmf = budgetPmf(a.dice, a.vmv);
      const weightOf = (e) => w[e];
      if (s === g) {
        const path = this.steps(s, [], weightOf, net);
        Object.assign(out, { total_cost: 0, path, arrival_turn: 0, expected_turns: 0, best_turns: 0, worst_turns: 0,
          legs: legs([], path) });
        return out;
      }
      let edges;
      if (carry) {
        const theta = thresholdTo(net, dist, w, g) + debt;  // the debt is paid first
        if (theta > MAX_TURNS * a.largest) {  // not even the highest rolls get there within the horizon
          out.reachable = false;
          const owed = debt ? ` after a debt of ${count(debt)} carried in` : "";
          out.reason = `${to} is ${C.g(out.cheapest_cost, 10, true)} PtMv away${owed} and a turn gives at most`
            + ` ${a.largest}: more than ${count(MAX_TURNS)} turns`;
          return out;
        }
        const low = pmf.findIndex((p) => p > 0);
        const worst = low > 0 ? Math.max(1, Math.ceil(theta / low)) : null;
        const horizon = Math.max(1, Math.min(MAX_TURNS, worst !== null ? worst : MAX_TURNS));
        let p = arrivalByTurn(pmf, theta, horizon);
        if (worst === null) {
          const done = p.findIndex((x) => x >= 1 - 1e-12);
          if (done >= 0) p = p.slice(0, done + 1);
        }
        out.p_by_turn = p;
        out.expected_turns = Math.max(1, expectedTurns(pmf, theta));
        out.worst_turns = worst;
        edges = soonestEdges(net, w, dist, s, g);
      } else {
        const values = [], probs = [];
        pmf.forEach((p, b) => { if (p > 0) { values.push(b); probs.push(p); } });
        let res;
        try {
          res = forbidPolicy(net, w, s, g, values, probs, MAX_TURNS);
        } catch (exc) {  // (its nodes are the layered network's: say so)
          if (layers === 1 || !(exc instanceof RequestError)) throw exc;
          throw new RequestError(`${exc.message} (through ${C.plural(stops.length, "stop")}: the map's`
            + ` ${count(this.net.n)} nodes once for each of the ${layers} legs)`);
        }
        if (!Number.isFinite(res.expected)) {
          out.reachable = false;
          return out;
        }
        if (!(res.p[res.p.length - 1] > 0)) {  // never there within the horizon, as under carry
          out.reachable = false;
          const fewest = earliestArrivals(net, w, s, [a.largest], true, false)[g];
          out.reason = beyondHorizon(String(to), out.cheapest_cost, a.largest, fewest);
          return out;
        }
        out.p_by_turn = res.p;
        out.expected_turns = res.expected;
        out.worst_turns = res.worst;
        edges = courseEdges(net, w, res.course, a.largest);
      }
      const positive = out.p_by_turn.findIndex((x) => x > 0);
      out.best_turns = positive >= 0 ? positive + 1 : null;
      out.path = this.steps(s, edges, weightOf, net);
      out.total_cost = out.path.reduce((acc, st) => acc + st.cost, 0);
      out.legs = legs(edges, out.path);
      return out;
    }

    /** The stops of ``via`` (routing.route: a list of ids). */
    static stops(via) {
      if (via === undefined) return [];
      if (typeof via === "string" || via === null || typeof via[Symbol.iterator] !== "function") {
        const one = typeof via === "string" ? " (not one str)" : "";
        throw new RequestError(`via must be a list of Eido or Pousa ids${one}, got ${repr(via)}`);
      }
      return Array.from(via, (v) => {
        if (typeof v !== "string") throw new RequestError(`via must be an Eido or Pousa id (text), got ${repr(v)}`);
        return v;
      });
    }

    /** The debt carried into the first turn (routing.route: a whole number, 0 under forbid). */
    static debt(debt, carry) {
      if (debt === undefined) return 0;
      if (!isInt(debt) || debt < 0 || debt > MAX_DEBT) {
        throw new RequestError(`debt must be a whole number from 0 to ${count(MAX_DEBT)}, got ${repr(debt)}`);
      }
      if (debt && !carry) {
        throw new RequestError(`debt must be 0 under partial='forbid', got ${debt}: a step starts only when the turn`
          + " pays all of it, so no debt is ever carried (docs/rules.md)");
      }
      return debt;
    }

    /** routing._legs: each leg ends where the route has first passed one more stop, the last at the goal. */
    static legs(names, net, layers, s, edges, path, turns) {
      const passed = [s % layers, ...edges.map((e) => net.dst[e] % layers)];
      const ends = [0];
      for (let j = 1; j < layers; j++) ends.push(passed.findIndex((p) => p >= j));
      ends.push(path.length - 1);
      const taken = turns === undefined ? null : [0, ...turns.flatMap((t) => t.steps.map(() => t.turn))];
      return names.slice(1).map((to, j) => ({
        steps: ends[j + 1] - ends[j],
        cost: path.slice(ends[j] + 1, ends[j + 1] + 1).reduce((acc, st) => acc + st.cost, 0),
        arrival_turn: taken === null || ends[j + 1] >= taken.length ? null : taken[ends[j + 1]],
        from: names[j], to,
      }));
    }

    /** routing._unreachable_leg: why the route through ``nodes`` cannot be made, the first leg that cannot. */
    legReason(a, nodes, carry) {
      const w = this.net.edgeWeights(Planner.planTable(a, carry));
      for (let i = 1; i < nodes.length; i++) {
        const x = nodes[i - 1], y = nodes[i];
        if (x === y || Number.isFinite(this.net.dijkstra(w, x).dist[y])) continue;
        const said = this.reason(a, x, y, carry);
        return nodes.length === 2 ? said : `from ${this.net.ids[x]} to ${this.net.ids[y]}: ${said}`;
      }
      throw new Error("every leg can be made");
    }

    /** routing._farthest_edges: under forbid, rolls that run out first go as far towards the goal as they allow. */
    farthestEdges(net, w, s, g, budgets) {
      const arrive = earliestArrivals(net, w, s, budgets, false, false), toGoal = net.costsTo(w, g);
      let far = s;
      for (let v = 0; v < net.n; v++) {
        if (arrive[v] >= 0 && (toGoal[v] < toGoal[far] || (toGoal[v] === toGoal[far] && arrive[v] < arrive[far]))) far = v;
      }
      const edges = soonestRoute(net, w, s, far, budgets, false);
      return [...edges, ...net.cheapestPath(w, net.dijkstra(w, far).dist, far, g)];
    }

    /** routing._budgets: the rolls checked, and each turn's budget. */
    static budgets(a, rolls) {
      if (typeof rolls === "string" || typeof rolls[Symbol.iterator] !== "function") {
        const one = typeof rolls === "string" ? " (not one str)" : "";  // (params.listed's words)
        throw new RequestError(`rolls must be a list of whole numbers (the results of turns 1, 2, ...)${one},`
          + ` got ${repr(rolls)}`);
      }
      rolls = Array.from(rolls, (r) => a.dice.checkRoll(r));
      return [rolls, rolls.map((r) => Math.max(r + a.vmv, 0))];
    }

    withRolls(out, net, w, s, g, played, dist, carry, debt, legs) {
      const [rolls, budgets] = played;
      let edges = soonestRoute(net, w, s, g, budgets, carry, debt);
      if (edges === null) edges = carry ? soonestEdges(net, w, dist, s, g) : this.farthestEdges(net, w, s, g, budgets);
      const steps = this.steps(s, edges, (e) => w[e], net);
      const sim = simulate(steps.slice(1).map((st) => st.cost), rolls, budgets, carry, debt);
      out.path = steps;
      out.total_cost = steps.reduce((acc, st) => acc + st.cost, 0);
      out.arrival_turn = sim.arrival >= 0 ? sim.arrival : null;
      out.crossed_turn = sim.crossed >= 0 ? sim.crossed : null;
      out.turns = sim.turns.map((t) => ({
        turn: t.turn, roll: t.roll, budget: t.budget, steps: t.steps.map((k) => steps[k + 1]), spent: t.spent,
        lost: t.lost, debt_after: t.debt, end: steps[t.end + 1].node,
      }));
      out.legs = legs(edges, steps, out.turns);
      return out;
    }

    /** routing.reach and routing.reach_rolls: per Eido, a debt, a probability or a turn (as_dict). */
    reach(from, o = {}) {
      const r = this.reachValues(from, o);
      const out = { from: String(from), actor: r.actor, partial: r.partial };
      const ids = this.net.ids;
      const pick = (keep) => {
        const obj = Object.create(null);  // ids are the map's: "__proto__" is an id like any other
        for (let k = 0; k < this.net.nEidos; k++) if (keep(r.values[k])) obj[ids[k]] = r.values[k];
        return obj;
      };
      if (r.what === "debt") {
        out.roll = o.roll;
        out.reachable = pick(Number.isFinite);
      } else if (r.what === "p_within") {
        out.turns = o.turns;
        out.p_within = pick(() => true);
      } else {
        const turns = pick((t) => t >= 0);
        if (Object.keys(turns).length) out.arrival_turn = turns;
      }
      return out;
    }

    /** The reach as one array over the Eidos: {what, values, actor, partial} (what the page draws). */
    reachValues(from, o = {}) {
      const given = ["roll", "turns", "rolls"].filter((k) => o[k] !== undefined && o[k] !== null);
      if (given.length !== 1) throw new RequestError("give exactly one of roll, turns or rolls");
      const net = this.net, nE = net.nEidos;
      if (given[0] === "rolls") {  // routing.reach_rolls, in its order: the actor, the rolls, the step rule
        const a = this.actorOf(o);
        const [, budgets] = Planner.budgets(a, o.rolls);
        const partial = Planner.partial(o);
        const w = net.edgeWeights(Planner.planTable(a, partial === "carry"));
        const arrive = earliestArrivals(net, w, net.node(from), budgets, false, partial === "carry");
        return { actor: a.name, partial, what: "arrival_turn", values: Array.from(arrive.subarray(0, nE)) };
      }
      const partial = Planner.partial(o);  // routing.reach, in its order
      const carry = partial === "carry";
      const a = this.actorOf(o);
      const table = Planner.planTable(a, carry);
      const s = net.node(from);
      const w = net.edgeWeights(table);
      const res = { actor: a.name, partial };
      if (given[0] === "roll") {
        const budget = Math.max(a.dice.checkRoll(o.roll) + a.vmv, 0);
        const { dist } = net.dijkstra(w, s);
        const debt = Array.from(dist.subarray(0, nE), (x) => (x <= budget + EPS ? 0 : Infinity));
        if (carry) {  // a last step started with points left, finished next turn
          for (let e = 0; e < w.length; e++) {
            const v = net.dst[e], du = dist[net.src[e]];
            if (v >= nE || !Number.isFinite(w[e])) continue;
            if (w[e] > EPS ? du < budget - EPS : du <= budget + EPS) debt[v] = Math.min(debt[v], Math.max(du + w[e] - budget, 0));
          }
        }
        return { ...res, what: "debt", values: debt };
      }
      const turns = o.turns;
      if (!isInt(turns) || turns < 1 || turns > MAX_TURNS) {
        throw new RequestError(`turns must be a whole number from 1 to ${count(MAX_TURNS)}, got ${repr(turns)}`);
      }
      const pmf = budgetPmf(a.dice, a.vmv);
      let p;
      if (carry) {
        const { dist } = net.dijkstra(w, s);
        const theta = nodeThresholds(net, dist, s, a.table).subarray(0, nE);
        p = arrivalLast(pmf, theta, turns);
      } else {
        const values = [], probs = [];
        pmf.forEach((q, b) => { if (q > 0) { values.push(b); probs.push(q); } });
        const targets = Array.from({ length: nE }, (_, k) => k);
        p = Array.from(forbidReach(net, w, s, targets, values, probs, turns));
      }
      return { ...res, what: "p_within", values: p };
    }

    // -- the words of `eidomap route` (cli/plan.py: _print_route) ---------------------------------
    name(node) {
      if (this.pousaSet.has(node)) return `Pousa ${node}`;
      const name = this.names.get(node);
      return name && name !== node ? `${node} "${name}"` : node;
    }

    routeText(r) {
      const num = C.g, pad = (s, n) => String(s).padStart(n);
      const name = (n) => this.name(n);
      const shown = (steps) => {
        const out = [];
        for (const s of steps) {
          const prev = out[out.length - 1];
          if (s.kind === "teleport_exit" && prev && prev.kind === "teleport") {
            out[out.length - 1] = { node: s.node, kind: "teleport", cost: prev.cost + s.cost };
          } else {
            out.push(s);
          }
        }
        return out;
      };
      const step = (s) => {
        const words = s.kind in STEP_WORDS ? STEP_WORDS[s.kind] : s.kind;
        return `${name(s.node)} (${words ? words + ", " : ""}${num(s.cost)})`;
      };
      const lines = [];
      const dice = `${r.dice}${r.vmv ? "+" + r.vmv : ""}`;
      lines.push(`Route ${name(r.from)} -> ${name(r.to)} for ${r.actor}`
        + ` (${dice} a turn, ${r.partial === "carry" ? "debt carried" : "no partial steps"})`);
      if (r.via.length) lines.push("  via " + r.via.map(name).join(", "));
      if (r.debt) lines.push(`  a debt of ${num(r.debt)} PtMv carried into turn 1, paid before any step`);
      if (!r.reachable) {
        lines.push(`  the goal cannot be reached: ${r.reason === null ? "None" : r.reason}`);
        return lines.join("\n") + "\n";
      }
      const steps = shown(r.path.slice(1));
      lines.push(`  this route: ${num(r.total_cost)} PtMv in ${C.plural(steps.length, "step")}`
        + ` (cheapest possible: ${num(r.cheapest_cost)} PtMv)`);
      if (r.via.length) {  // cli/plan.py: _print_legs
        let at = 1;
        r.legs.forEach((leg, k) => {
          const when = leg.arrival_turn === null ? "" : `, there in turn ${leg.arrival_turn}`;
          const taken = shown(r.path.slice(at, at + leg.steps));
          at += leg.steps;
          lines.push(`  leg ${k + 1}: ${name(leg.from)} -> ${name(leg.to)}: ${num(leg.cost)} PtMv in`
            + ` ${C.plural(taken.length, "step")}${when}`);
        });
      }
      if (r.turns.length) {
        lines.push(`  ${pad("turn", 4)} ${pad("roll", 4)} ${pad("budget", 6)} ${pad("spent", 5)} ${pad("lost", 4)}`
          + ` ${pad("debt", 4)}  steps -> end of turn`);
        for (const t of r.turns) {
          const taken = shown(t.steps).map(step).join(", ") || "-";
          lines.push(`  ${pad(t.turn, 4)} ${pad(t.roll, 4)} ${pad(num(t.budget), 6)} ${pad(num(t.spent), 5)}`
            + ` ${pad(num(t.lost), 4)} ${pad(num(t.debt_after), 4)}  ${taken} -> ${name(t.end)}`);
        }
        if (r.arrival_turn === null) lines.push(`  not there after the ${C.plural(r.turns.length, "roll")} given`);
        else if (r.crossed_turn === null) {
          lines.push(`  arrives in turn ${r.arrival_turn}, still crossing it after the rolls given`);
        } else if (r.crossed_turn !== r.arrival_turn) {
          lines.push(`  arrives in turn ${r.arrival_turn}, finishes crossing it in turn ${r.crossed_turn}`);
        } else lines.push(`  arrives in turn ${r.arrival_turn}`);
        return lines.join("\n") + "\n";
      }
      lines.push("  path: " + [name(r.path[0].node), ...steps.map(step)].join(" -> "));
      if (!steps.length) {
        lines.push("  already there");
        return lines.join("\n") + "\n";
      }
      const worst = r.worst_turns === null ? "unbounded" : r.worst_turns;
      lines.push(`  turns to arrive: best ${r.best_turns}, expected ${C.fixed(r.expected_turns, 3)}, worst ${worst}`);
      let cells = r.p_by_turn.map((p, k) => [k + 1, p]).filter(([, p]) => p > 0);
      const sure = cells.findIndex(([, p]) => p >= 0.9995);
      if (sure >= 0) cells = cells.slice(0, sure + 1);
      const text = cells.map(([k, p]) => `${k}:${C.fixed(p, 3)}`);
      lines.push("  P(arrived by turn k): " + text.slice(0, 24).join("  ") + (text.length > 24 ? "  ..." : ""));
      return lines.join("\n") + "\n";
    }
  }

  return { Planner };
})(EidomapCommon);
