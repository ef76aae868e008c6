// The Eido planner page: the board drawn from the embedded arrays, the controls, and the answers
// of EidoPlanner (eido.js) drawn over the board and written beside it.
"use strict";

(function () {
  const C = EidomapCommon, V = PlannerView;
  const data = JSON.parse(document.getElementById("eidomap-data").textContent);
  const planner = new EidoPlanner.Planner(data);
  const net = planner.net;
  const nE = data.n_eidos, nP = data.n_pousas;
  const $ = (id) => document.getElementById(id);

  // -- the drawing, in the page's coordinates: 16-bit steps of the map's larger side ----------------
  // Each Eido is an SVG path text ("M x y L x y ... Z" a ring): the browser parses a whole layer's
  // text at once, far faster than a call per vertex (a 50,000-Eido board opens in seconds).
  const exy = C.array(data.eidos.xy), ring = C.array(data.eidos.ring), part = C.array(data.eidos.part);
  const geom = C.array(data.eidos.geom);
  const terrainOf = net.nodeTerrain;
  const outline = new Array(nE), bbox = new Int32Array(4 * nE);
  for (let i = 0; i < nE; i++) {
    let d = "", x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let r = part[geom[i]]; r < part[geom[i + 1]]; r++) {
      for (let v = ring[r]; v < ring[r + 1]; v++) {
        const x = exy[2 * v], y = exy[2 * v + 1];
        d += (v === ring[r] ? "M" : "L") + x + " " + y;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
      d += "Z";
    }
    outline[i] = d;
    bbox.set([x0, y0, x1, y1], 4 * i);
  }
  /** One Path2D of the Eidos ``which`` (filled even-odd: holes stay holes). */
  const pathOf = (which) => V.path(which.map((i) => outline[i]).join(""));
  const byTerrain = data.terrain_names.map(() => []);
  for (let i = 0; i < nE; i++) byTerrain[terrainOf[i]].push(i);
  const terrainPaths = byTerrain.map(pathOf);
  const borders = V.path(outline.join(""));
  const single = new Map();
  const eidoPath = (i) => {
    if (!single.has(i)) single.set(i, V.path(outline[i]));
    return single.get(i);
  };
  const pos = C.array(data.positions);
  const at = (k) => (k < nE + nP ? [pos[2 * k], pos[2 * k + 1]] : null);  // the hub has no place
  const lines = (spec) => {
    const xy = C.array(spec.xy), off = C.array(spec.offsets);
    let d = "";
    for (let l = 0; l + 1 < off.length; l++) {
      for (let v = off[l]; v < off[l + 1]; v++) d += (v === off[l] ? "M" : "L") + xy[2 * v] + " " + xy[2 * v + 1];
    }
    return V.path(d);
  };
  const roads = lines(data.roads), streams = lines(data.streams);
  const fountains = C.array(data.fountains);
  const extent = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < nE; i++) {
    for (let j = 0; j < 2; j++) {
      extent[j] = Math.min(extent[j], bbox[4 * i + j]);
      extent[j + 2] = Math.max(extent[j + 2], bbox[4 * i + j + 2]);
    }
  }

  /** A Pousa's drawn radius (CSS pixels, at any zoom). */
  const POUSA_PX = 3;

  // -- finding what is under a point: a grid of the Eidos' boxes, then the rings (even-odd) --------
  const cells = Math.max(1, Math.ceil(Math.sqrt(nE)));
  const cw = (extent[2] - extent[0]) / cells || 1, ch = (extent[3] - extent[1]) / cells || 1;
  const bucket = Array.from({ length: cells * cells }, () => []);
  const cell = (x, y) => [Math.min(cells - 1, Math.max(0, Math.floor((x - extent[0]) / cw))),
    Math.min(cells - 1, Math.max(0, Math.floor((y - extent[1]) / ch)))];
  for (let i = 0; i < nE; i++) {
    const [a0, b0] = cell(bbox[4 * i], bbox[4 * i + 1]), [a1, b1] = cell(bbox[4 * i + 2], bbox[4 * i + 3]);
    for (let a = a0; a <= a1; a++) for (let b = b0; b <= b1; b++) bucket[b * cells + a].push(i);
  }
  function inside(i, x, y) {
    let odd = false;
    for (let pa = geom[i]; pa < geom[i + 1]; pa++) {
      for (let r = part[pa]; r < part[pa + 1]; r++) {
        for (let v = ring[r], u = ring[r + 1] - 1; v < ring[r + 1]; u = v++) {
          const xi = exy[2 * v], yi = exy[2 * v + 1], xj = exy[2 * u], yj = exy[2 * u + 1];
          if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) odd = !odd;
        }
      }
    }
    return odd;
  }
  /** The Eido under a point (-1: none). */
  function eidoAt(px, py) {
    const [x, y] = view.toWorld(px, py);
    if (x < extent[0] || x > extent[2] || y < extent[1] || y > extent[3]) return -1;
    const [a, b] = cell(x, y);
    for (const i of bucket[b * cells + a]) {
      if (x >= bbox[4 * i] && x <= bbox[4 * i + 2] && y >= bbox[4 * i + 1] && y <= bbox[4 * i + 3] && inside(i, x, y)) return i;
    }
    return -1;
  }

  /**
   * What a click or a tap at a point picks: a Pousa inside its drawn circle, else the Eido under the point (a small
   * Eido beside a road is the Eido, not the road's Pousa), else a Pousa within 8 px (one on a coast).
   */
  function nodeAt(px, py) {
    const [best, d] = pousaNear(px, py);
    if (best >= 0 && d <= POUSA_PX + 0.5) return best;  // (its outline, 1 px wide, is half outside)
    const i = eidoAt(px, py);
    return i >= 0 ? i : best;
  }

  /** The Pousa nearest a point of the screen within 8 px, and how far it is ([-1, 8]: none). */
  function pousaNear(px, py) {
    let best = -1, bestD = 8;
    for (let k = nE; k < nE + nP; k++) {
      const [sx, sy] = view.toScreen(...at(k));
      const d = Math.hypot(sx - px, sy - py);
      if (d < bestD) { best = k; bestD = d; }
    }
    return [best, bestD];
  }

  // -- state -------------------------------------------------------------------------------------
  // ``preview``: the route to what the pointer (or the keyboard's cursor) is on, before a click fixes it as the goal
  // ``stops``: the places the route goes through, in order; ``played``: the rolls of the turns played (play mode),
  // ``play`` what they did (the token's place, its debt, the stops left: journey())
  const state = { start: -1, goal: -1, hover: -1, route: null, reach: null, actor: null, preview: null, stops: [],
    played: [], playBase: null, play: null, movers: [], placing: -1, race: null };  // (several tokens: showRace)
  const speciesNames = data.species.names;
  const controls = {
    species: $("species"), mount: $("mount"), dice: $("dice"), roll: $("roll"), turns: $("turns"), from: $("from"),
    to: $("to"), rolls: $("rolls"), party: $("party"), debt: $("debt"), addStop: $("add-stop"), playRoll: $("play-roll"),
  };
  for (const [k, s] of speciesNames.entries()) {
    const label = data.species.labels[k] ? `${s}: ${data.species.labels[k]}` : s;
    controls.species.append(V.el("option", { value: s }, label));
    controls.mount.append(V.el("option", { value: s }, label));
    const box = V.el("label");
    const check = V.el("input", { type: "checkbox", value: s });
    box.append(check, document.createTextNode(" " + s));
    controls.party.append(box);
  }
  controls.species.value = data.default_species;
  if (net.n <= 20000) {
    const list = $("places");
    for (let k = 0; k < nE + nP; k++) list.append(V.el("option", { value: net.ids[k] }));
  }
  const mode = () => document.querySelector('input[name="mode"]:checked').value;
  const partial = () => document.querySelector('input[name="partial"]:checked').value;

  /** cli/plan.py's _ints: "3,5,2" -> [3, 5, 2]; an empty item ("3,,5") is no roll: refused. */
  function ints(text, what) {
    const values = text.split(",").map(C.whole);
    if (values.includes(null)) throw new C.RequestError(`${what} must be whole numbers separated by commas, got ${C.repr(text)}`);
    return values;
  }

  /** A field's whole number, read as the command line reads one (cli/plan.py: whole). */
  function number(input, what) {
    const v = C.whole(input.value);
    if (v === null) {
      throw new C.RequestError(`${what} must be a whole number (at most ${C.MAX_DIGITS} digits 0-9), got ${C.repr(input.value)}`);
    }
    return v;
  }

  /** The command line's choices, by their names, from the controls. */
  function options() {
    const o = { species: controls.species.value, partial: partial(), dice: controls.dice.value.trim() || "1d6" };
    if (controls.mount.value) o.mount = controls.mount.value;
    const party = Array.from(controls.party.querySelectorAll("input:checked"), (c) => c.value);
    if (party.length) o.with = party;
    return o;
  }

  /** The route's choices: the actor's, the rolls typed (none: under the dice; play mode plays its own), the stops
   * and the debt carried in. */
  function routeOptions() {
    const o = options();
    if (mode() !== "play" && controls.rolls.value.trim()) o.rolls = ints(controls.rolls.value, "rolls");
    return Object.assign(o, journeyOptions());
  }

  // -- answering ------------------------------------------------------------------------------
  const out = { status: $("status"), text: $("text"), chart: $("chart"), table: $("table"), legend: $("legend") };

  function clearAnswer() {
    state.route = null;
    state.reach = null;
    state.play = null;
    state.race = null;
    raceTable();
    history.textContent = "";
    out.text.textContent = "";
    out.chart.textContent = "";
    out.table.textContent = "";
    V.legend(out.legend, null);
  }

  /** The legend: each terrain's colour and what the actor chosen pays to enter it across a border. */
  function terrainKey() {
    const key = $("terrains");
    key.textContent = "";
    const head = V.el("tr");
    head.append(V.el("th", {}, "terrain"), V.el("th", {}, state.actor ? `PtMv to enter (${state.actor.name})` : "PtMv to enter"));
    key.append(head);
    const border = net.kinds.indexOf("border") * net.width;
    data.terrain_names.forEach((_, t) => {
      if (!byTerrain[t].length) return;  // (a terrain of the catalog no Eido has)
      const row = V.el("tr"), name = V.el("td"), swatch = V.el("span", { class: "swatch" });
      swatch.style.background = data.terrain_colors[t];
      name.append(swatch, document.createTextNode(` ${data.terrain_labels[t]}`));
      const cost = state.actor ? state.actor.table[border + t] : NaN;
      row.append(name, V.el("td", {}, !state.actor ? "" : Number.isFinite(cost) ? C.g(cost) : "cannot enter"));
      key.append(row);
    });
  }

  function answer() {
    clearAnswer();
    const t0 = performance.now();
    keepPlayed();
    showStops();
    showTokens();
    $("play-box").hidden = mode() !== "play";
    try {
      const o = options();
      state.actor = null;
      state.actor = planner.actorOf(o);
      const m = mode();
      if (state.start < 0) {
        V.status(out.status, routing() ? "Click the start, then the goal." : "Click where the turn starts.");
      } else if (m === "play") {
        showPlay(o);
      } else if (m === "route") {
        if (state.goal < 0) V.status(out.status, `Start: ${planner.name(net.ids[state.start])}. Click the goal.`);
        else showRoute();
        showRace();
      } else if (m === "turn") {
        showReach({ ...o, roll: number(controls.roll, "the roll") }, "debt");
      } else {
        showReach({ ...o, turns: number(controls.turns, "turns") }, "p_within");
      }
    } catch (e) {
      if (!(e instanceof C.RequestError)) throw e;
      clearAnswer();
      V.status(out.status, e.message, true);
    }
    terrainKey();
    link.publish(snapshot());  // the page's address holds the plan
    if (state.hover >= 0) showTip(state.hover);  // the tooltip speaks of the actor chosen now
    state.preview = null;
    previewBox.hidden = true;
    ask(state.hover, t0);  // and the preview of the plan chosen now
    view.paint();
    window.eidomap.lastMs = performance.now() - t0;  // the answer computed, written and drawn
  }

  function showRoute() {
    const o = routeOptions();
    const r = planner.route(net.ids[state.start], net.ids[state.goal], o);
    state.route = { ...r, ends: turnEnds(r, o) };
    out.text.textContent = planner.routeText(r);
    let said;
    if (!r.reachable) said = "The goal cannot be reached.";
    else if (r.turns.length || o.rolls) {
      said = r.arrival_turn !== null ? `Arrives in turn ${r.arrival_turn}.` : `Not there after the ${C.plural(r.turns.length, "roll")} given.`;
    } else if (r.path.length <= 1) said = "Already there.";
    else {
      said = `Expected ${C.fixed(r.expected_turns, 3)} turns; P(arrived by turn k) below; the turns' ends drawn for`
        + ` average rolls (${C.g(averageBudget(o))} PtMv a turn).`;
    }
    V.status(out.status, said);
    if (r.reachable && !o.rolls && r.p_by_turn.length) distribution(r);
  }

  /** P(arrived by turn k) as a table and bars (``offset``: the turns already played, counted in k). */
  function distribution(r, offset = 0) {
    let cells = r.p_by_turn.map((p, k) => [k + 1 + offset, p]).filter(([, p]) => p > 0);
    const sure = cells.findIndex(([, p]) => p >= 0.9995);
    if (sure >= 0) cells = cells.slice(0, sure + 1);
    cells = cells.slice(0, 40);
    const head = V.el("tr");
    head.append(V.el("th", {}, "turn k"), V.el("th", {}, "P(arrived by k)"));
    out.table.append(V.el("caption", {}, "Arrival under the dice"), head);
    for (const [k, p] of cells) {
      const tr = V.el("tr");
      tr.append(V.el("td", {}, String(k)), V.el("td", {}, C.fixed(p, 3)));
      out.table.append(tr);
      const bar = V.el("div", { title: `turn ${k}: ${C.fixed(p, 3)}` });
      bar.style.height = `${Math.max(1, 100 * p)}%`;
      out.chart.append(bar);
    }
  }

  function showReach(o, what) {
    const r = planner.reachValues(net.ids[state.start], o);
    state.reach = r;
    const v = r.values;
    if (what === "debt") {
      const n = v.filter(Number.isFinite).length;
      const top = v.reduce((a, x) => (Number.isFinite(x) && x > a ? x : a), 1);  // (no spread: 200,000 values)
      state.reach.scale = top;
      V.status(out.status, `${r.actor} from ${planner.name(net.ids[state.start])} with a roll of ${o.roll}:`
        + ` ${C.plural(n, "Eido")} where the turn can end.`);
      V.legend(out.legend, "debt carried", "0", C.g(top), true);
    } else {
      const n = v.filter((p) => p > 0).length;
      state.reach.scale = 1;
      V.status(out.status, `${r.actor} from ${planner.name(net.ids[state.start])}: P(arrived within`
        + ` ${C.plural(o.turns, "turn")}) above 0 in ${C.plural(n, "Eido")}.`);
      V.legend(out.legend, `P(arrived within ${o.turns})`, "0", "1");
    }
    state.reach.fills = shades(state.reach);
  }

  // -- drawing --------------------------------------------------------------------------------------
  function drawBase(ctx, view) {
    data.terrain_names.forEach((_, t) => {
      ctx.fillStyle = data.terrain_colors[t];
      ctx.fill(terrainPaths[t], "evenodd");
    });
    ctx.lineWidth = view.lineWidth(nE > 5000 ? 0.35 : 0.7);
    ctx.strokeStyle = "rgba(40,40,40,0.8)";
    ctx.stroke(borders);
    ctx.lineJoin = "round";
    ctx.strokeStyle = data.colors.stream;
    ctx.lineWidth = view.lineWidth(1.6);
    ctx.stroke(streams);
    ctx.strokeStyle = data.colors.road;
    ctx.lineWidth = view.lineWidth(2);
    ctx.stroke(roads);
    const r = view.lineWidth(POUSA_PX);
    ctx.fillStyle = "#fff";
    ctx.lineWidth = view.lineWidth(1);
    for (let k = nE; k < nE + nP; k++) {
      const [x, y] = at(k);
      ctx.beginPath();
      ctx.arc(x, y, r, 0, 2 * Math.PI);
      ctx.fill();
      ctx.stroke();
    }
    ctx.fillStyle = data.colors.fountain;
    for (let f = 0; f + 1 < fountains.length; f += 2) {
      const x = fountains[f], y = fountains[f + 1], d = view.lineWidth(5);
      ctx.beginPath();
      ctx.moveTo(x, y - d); ctx.lineTo(x + d, y); ctx.lineTo(x, y + d); ctx.lineTo(x - d, y);
      ctx.closePath();
      ctx.fill();
    }
  }

  /** The reach's fills: one path per shade (32 shades of the ramp), built once per answer. */
  function shades(r) {
    const groups = new Map();
    for (let i = 0; i < nE; i++) {
      const v = r.values[i];
      const reached = r.what === "debt" ? Number.isFinite(v) : v > 0;
      const t = r.what === "debt" ? 1 - v / r.scale : v;
      const color = reached ? V.ramp(Math.round(32 * t) / 32) : "#d9d9d9";
      if (!groups.has(color)) groups.set(color, []);
      groups.get(color).push(i);
    }
    return Array.from(groups, ([color, eidos]) => [color, pathOf(eidos)]);
  }

  function drawReach(ctx) {
    ctx.globalAlpha = 0.85;
    for (const [color, path] of state.reach.fills) {
      ctx.fillStyle = color;
      ctx.fill(path, "evenodd");
    }
    ctx.globalAlpha = 1;
  }

  /** The mean of a turn's PtMv, max(0, roll + VMv), under the dice of ``o``. */
  function averageBudget(o) {
    const a = planner.actorOf(o), p = a.dice.pmf();
    return p.reduce((sum, q, i) => sum + q * Math.max(a.dice.low + i + a.vmv, 0), 0);
  }

  /**
   * Where each turn of route ``r`` ends: [{turn, at}] with ``at`` an index of ``r.path``, the last the goal.  With
   * rolls, the itinerary's own ends; under the dice, where they would be if every turn gave the average PtMv (a
   * picture of the journey's pace: the dice decide the true ends): a step starts while PtMv are left, the debt
   * carried (under forbid: only a step that fits the PtMv left, the rest lost).
   */
  function turnEnds(r, o) {
    if (!r.reachable || r.path.length <= 1) return [];
    const out = [];
    if (r.turns.length) {
      let at = 0;
      for (const t of r.turns) {
        at += t.steps.length;
        out.push({ turn: t.turn, at });
      }
      return out;
    }
    const budget = averageBudget(o), carry = r.partial === "carry";
    let left = budget, turn = 1;
    for (let owed = r.debt; owed > 0;) {  // a debt carried in: paid before any step, free ones too
      if (owed <= left + 1e-9 || out.length > 10000) {
        left -= owed;
        break;
      }
      out.push({ turn: turn++, at: 0 });
      owed -= left;
      left = budget;
    }
    for (let i = 1; i < r.path.length; i++) {
      const cost = r.path[i].cost;
      if (carry) {
        while (left <= 1e-9 && cost > 0) {
          out.push({ turn: turn++, at: i - 1 });
          left += budget;
          if (out.length > 10000) return out;  // (a picture: at most 10,000 turns drawn)
        }
      } else if (cost > left + 1e-9) {
        out.push({ turn: turn++, at: i - 1 });
        left = Math.max(budget, cost);  // (a step dearer than the average: taken in a turn whose roll pays it)
      }
      left -= cost;
    }
    out.push({ turn, at: r.path.length - 1 });
    return out;
  }

  /** The route's legs: [{nodes, color, dash}], a turn each (after the rolls given run out: dashed grey). */
  function legs(r) {
    const nodes = (from, to) => r.path.slice(from, to + 1).map((s) => net.index.get(s.node));
    const out = [];
    let from = 0;
    for (const end of r.ends) {
      if (end.at > from) out.push({ nodes: nodes(from, end.at), color: V.turnColor(end.turn, r.ends.length), dash: [] });
      from = end.at;
    }
    if (from < r.path.length - 1) out.push({ nodes: nodes(from, r.path.length - 1), color: "#555", dash: [6, 5] });
    return out;
  }

  function drawRoute(ctx, view, r) {
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    for (const leg of legs(r)) {
      let prev = null, jump = false;
      for (const k of leg.nodes) {
        const p = k === undefined ? null : at(k);
        if (p === null) { jump = true; continue; }  // through the teleport hub: a dotted jump
        if (prev !== null) {
          ctx.beginPath();
          ctx.moveTo(...prev);
          ctx.lineTo(...p);
          ctx.setLineDash((jump ? [2, 4] : leg.dash).map((d) => view.lineWidth(d)));
          ctx.strokeStyle = "#fff";
          ctx.lineWidth = view.lineWidth(6.5);
          ctx.stroke();
          ctx.strokeStyle = leg.color;
          ctx.lineWidth = view.lineWidth(4);
          ctx.stroke();
        }
        prev = p;
        jump = false;
      }
    }
    ctx.setLineDash([]);
  }

  function drawOver(ctx, view) {
    if (state.reach) drawReach(ctx);
    if (state.race) drawRace(ctx, view);  // (token 1's route among them, in its colour)
    else if (state.route && state.route.reachable) drawRoute(ctx, view, state.route);
    const p = state.preview;
    if (p && p.route && p.route.reachable) {
      ctx.globalAlpha = 0.8;
      drawRoute(ctx, view, p.route);
      ctx.globalAlpha = 1;
    }
    if (state.hover >= 0 && state.hover < nE) {
      ctx.lineWidth = view.lineWidth(3);
      ctx.strokeStyle = "#000";
      ctx.stroke(eidoPath(state.hover));
    }
    if (state.play) drawTrail(ctx, view);
  }

  function drawScreen(ctx, view) {
    const screen = (k) => view.toScreen(...at(k));
    if (state.start >= 0) V.disc(ctx, ...screen(state.start), 6, "#000", "");
    if (state.goal >= 0 && mode() === "route") V.star(ctx, ...screen(state.goal), 16);  // a turn's end sits on it
    if (state.preview) V.star(ctx, ...screen(state.preview.k), 12);
    for (const r of [!state.race && state.route, state.preview && state.preview.route]) {
      if (!r || !r.reachable || !r.ends.length) continue;
      const ends = new Map();  // several turns ending at one place: one disc, "2,3"
      for (const t of r.ends) {
        const node = r.path[t.at].node;
        if (!ends.has(node)) ends.set(node, []);
        ends.get(node).push(t.turn);
      }
      for (const [node, turns] of ends) {
        const k = net.index.get(node);
        if (k === undefined || at(k) === null) continue;
        V.disc(ctx, ...screen(k), 10, V.turnColor(turns[turns.length - 1], r.ends.length),
          turns.map((t) => t + (r.offset || 0)).join(","));  // (after turns played: counted on from them)
      }
    }
    drawJourney(ctx);
    drawTokens(ctx);
    if (state.hover >= nE) {
      const [x, y] = screen(state.hover);
      ctx.beginPath();
      ctx.arc(x, y, 7, 0, 2 * Math.PI);
      ctx.lineWidth = 2.5;
      ctx.strokeStyle = "#000";
      ctx.stroke();
    }
  }

  const view = new V.MapView($("map"), extent, true, drawBase, drawOver);
  view.drawScreen = drawScreen;
  view.buttons($("zoom"));
  V.boardTools(view, data.map);

  // -- the tooltip ------------------------------------------------------------------------------
  const tip = $("tip");

  function tipText(k) {
    if (k >= nE) return `Pousa ${net.ids[k]}\nroad: ${data.pousa_roads[k - nE]}`;
    const id = net.ids[k], name = planner.names.get(id);
    const lines = [name && name !== id ? `${id} "${name}"` : id];
    const t = terrainOf[k];
    lines.push(`terrain: ${data.terrain_labels[t]}`);
    if (data.regions[k]) lines.push(`region: ${data.regions[k]}`);
    if (state.actor) {
      const cost = state.actor.table[net.kinds.indexOf("border") * net.width + t];
      lines.push(`PtMv to enter (${state.actor.name}): ${Number.isFinite(cost) ? C.g(cost) : "cannot enter"}`);
    }
    if (state.reach) {
      const v = state.reach.values[k];
      if (state.reach.what === "debt") lines.push(Number.isFinite(v) ? `this turn can end here, debt ${C.g(v)}` : "this turn cannot end here");
      else lines.push(`P(arrived within the turns): ${C.fixed(v, 4)}`);
    }
    return lines.join("\n");
  }

  function showTip(k) {
    if (k < 0) {
      tip.hidden = true;
      return;
    }
    tip.textContent = tipText(k);
    tip.hidden = false;
    const [x, y] = view.toScreen(...at(k));
    const left = Math.min(Math.max(4, x + 14), view.w - tip.offsetWidth - 4);
    const top = y + 14 + tip.offsetHeight > view.h ? y - 14 - tip.offsetHeight : y + 14;
    tip.style.left = `${left}px`;
    tip.style.top = `${Math.max(4, top)}px`;
  }

  function hover(k, since = performance.now()) {
    if (k === state.hover) return;
    state.hover = k;
    showTip(k);
    ask(k, since);
    view.redraw();
  }

  // -- the preview: with a start set, the route to what is pointed at, drawn and summed up before the click -------
  const previewBox = $("preview");

  /** What a click on ``k`` would plan: a route from the start (null: the click would not plan one). */
  function question(k) {
    if (!routing() || playing() || state.placing >= 0 || state.start < 0 || k < 0 || k === state.start || k === state.goal
      || state.stops.includes(k)) return null;  // (a stop: the route already goes there)
    let o;
    try {
      o = routeOptions();
    } catch (e) {
      if (!(e instanceof C.RequestError)) throw e;
      return null;  // (the status line already says what is wrong)
    }
    const kind = `${o.partial}${o.rolls ? " rolls" : ""}`;
    return { k, kind, key: JSON.stringify([state.start, k, o]), question: { from: net.ids[state.start], to: net.ids[k], o } };
  }

  function ask(k, since) {
    const q = question(k);
    if (q) preview.request(q, since);
    else if (state.preview) {
      preview.cancel();
      showPreview(null);
    }
  }

  /** The preview's summary: turns, PtMv and P(arrived by the turn drawn). */
  function previewWords(q, r) {
    const to = planner.name(q.question.to);
    if (r.error !== undefined) return `${to}: ${r.error}`;
    if (!r.reachable) return `${to} cannot be reached${r.reason ? ": " + r.reason : ""}.`;
    const cost = `${C.g(r.total_cost)} PtMv`;
    if (q.question.o.rolls) {
      return r.arrival_turn !== null ? `${to}: turn ${r.arrival_turn} with the rolls given, ${cost}.`
        : `${to}: ${cost}, not there after the ${C.plural(r.turns.length, "roll")} given.`;
    }
    const shown = r.ends.length, p = r.p_by_turn[Math.min(shown, r.p_by_turn.length) - 1];
    return `${to}: ${cost}; turn ${shown} with average rolls; P(arrived by turn ${shown}) = ${C.fixed(p, 3)};`
      + ` expected ${C.fixed(r.expected_turns, 2)} turns.`;
  }

  function showPreview(q, r = null, working = false) {
    if (q === null) {
      state.preview = null;
      previewBox.hidden = true;
    } else {
      const route = r && r.error === undefined ? { ...r, ends: turnEnds(r, q.question.o) } : null;
      state.preview = { k: q.k, key: q.key, route, working };
      previewBox.textContent = working ? `${planner.name(q.question.to)}: working\u2026 (the pointer stays free)`
        : previewWords(q, route || r);
      previewBox.hidden = false;
    }
    view.paint();
  }

  /** Under forbid (without rolls) a route on a big board takes a while: the worker plans it, the pointer moves on. */
  const preview = new V.Preview({
    ask: (q) => planner.route(q.question.from, q.question.to, q.question.o),
    slow: (q, ms) => (ms === undefined ? q.kind === "forbid" && nE > 1000 : ms > 25),
    show: (q, r, working) => { if (question(state.hover)?.key === q.key) showPreview(q, r, working); },
    worker: { scripts: ["eidomap-common", "eidomap-eido"], data: $("eidomap-data").textContent,
      main: V.workerMain("(d) => new EidoPlanner.Planner(d)", "(p, q) => p.route(q.from, q.to, q.o)") },
  });

  // -- choosing ---------------------------------------------------------------------------------
  /** A click (or Enter) on ``k``: the start; with a start, the goal (the route previewed); on the start, none. */
  function choose(k) {
    if (k < 0 || placeMover(k)) return;  // (a token's start being picked: the click is its)
    if (!routing() || state.start < 0) {
      state.start = k;
      state.goal = -1;
    } else if (k === state.start) {
      state.start = state.goal = -1;  // the next click chooses the start again
    } else {
      state.goal = k;
    }
    controls.from.value = state.start >= 0 ? net.ids[state.start] : "";
    controls.to.value = state.goal >= 0 ? net.ids[state.goal] : "";
    answer();
  }

  view.on("hover", (px, py, since) => hover(nodeAt(px, py), since));
  view.on("leave", () => hover(-1));
  /** A click or tap at (px, py): choose what is there; with Shift, add it as a stop (a long press already did). */
  function pickAt(px, py) {
    const k = nodeAt(px, py);
    hover(k);
    if (gesture.long || boardLocked()) return;
    if (gesture.shift) addStop(k);
    else choose(k);
  }

  view.on("pick", pickAt);
  // Dragging the start's token: the preview follows the pointer, the release fixes the goal there (the start: nothing)
  V.dragFrom(view, (px, py) => {
    if (!routing() || playing() || state.start < 0 || at(state.start) === null || stopAt(px, py) >= 0) return false;
    const [x, y] = view.toScreen(...at(state.start));
    return Math.hypot(px - x, py - y) <= 10;
  }, (px, py, since) => hover(nodeAt(px, py), since), (px, py, moved) => {
    const k = nodeAt(px, py);
    if (!moved) {
      gesture.long = gesture.shift = false;
      pickAt(px, py);
    } else if (k >= 0 && k !== state.start && at(k) !== null) choose(k);
    else hover(k);
  });
  view.on("enter", () => {
    if (boardLocked()) return;
    if (gesture.shiftKey) addStop(state.hover);
    else choose(state.hover);
  });
  view.on("escape", () => {
    if (tokens.cancel()) return;
    state.start = state.goal = -1;
    controls.from.value = controls.to.value = "";
    forgetJourney();
    answer();
  });
  view.on("focus", () => {
    if (state.hover >= 0) return;
    let best = state.start, bestD = Infinity;
    if (best < 0) {
      const [cx, cy] = view.toWorld(view.w / 2, view.h / 2);
      for (let k = 0; k < nE; k++) {
        const [x, y] = at(k), d = Math.hypot(x - cx, y - cy);
        if (d < bestD) { best = k; bestD = d; }
      }
    }
    hover(best);
  });
  view.on("move", (dx, dy) => {
    const from = state.hover >= 0 ? state.hover : state.start >= 0 ? state.start : 0;
    const [sx, sy] = view.toScreen(...at(from));
    let best = -1, score = -Infinity;
    for (let e = net.indptr[from]; e < net.indptr[from + 1]; e++) {
      const k = net.dst[e];
      if (k >= nE + nP || k === from) continue;
      const [x, y] = view.toScreen(...at(k));
      const d = Math.hypot(x - sx, y - sy) || 1e-9;
      const cos = ((x - sx) * dx + (y - sy) * dy) / d;
      if (cos > 0.35 && cos - d * 1e-4 > score) { best = k; score = cos - d * 1e-4; }
    }
    if (best < 0) return;
    const [x, y] = view.toScreen(...at(best));
    if (x < 0 || y < 0 || x > view.w || y > view.h) view.pan(view.w / 2 - x, view.h / 2 - y);
    hover(best);
  });

  function place(input, which) {
    const id = input.value.trim();
    if (!id) state[which] = -1;
    else {
      const k = net.index.get(id);
      if (k === undefined) {
        V.status(out.status, `${data.map}: no Eido or Pousa with id ${C.repr(id)}`, true);
        return;
      }
      state[which] = k;
    }
    answer();
  }

  controls.from.addEventListener("change", () => place(controls.from, "start"));
  controls.to.addEventListener("change", () => place(controls.to, "goal"));
  $("swap").addEventListener("click", () => {
    [state.start, state.goal] = [state.goal, state.start];
    state.stops.reverse();  // the way back: the same stops, the other way round
    [controls.from.value, controls.to.value] = [controls.to.value, controls.from.value];
    answer();
  });
  $("clear").addEventListener("click", () => {
    state.start = state.goal = -1;
    controls.from.value = controls.to.value = "";
    forgetJourney();
    answer();
  });
  const ownChange = new WeakSet([controls.from, controls.to, controls.addStop, controls.playRoll]);  // (their own handlers)
  $("controls").addEventListener("change", (e) => {
    if (!ownChange.has(e.target)) answer();
  });
  $("controls").addEventListener("submit", (e) => e.preventDefault());

  // -- stops: the route goes through them in order (issue 48, 2) ---------------------------------------------------
  const routing = () => mode() === "route" || mode() === "play";
  const STOP_COLOR = "#6a3d9a";
  /** How long a press on a touch screen lasts before it adds a stop (ms). */
  const LONG_PRESS_MS = 550;

  /** The route's stops and the debt carried into its first turn, as routing.route takes them (none: not said). */
  function journeyOptions() {
    const o = {};
    if (state.stops.length) o.via = state.stops.map((k) => net.ids[k]);
    const debt = controls.debt.value.trim() === "" ? 0 : number(controls.debt, "the debt");
    if (debt !== 0) o.debt = debt;  // (a negative one: routing.route's words refuse it)
    return o;
  }

  function addStop(k) {
    if (k < 0 || at(k) === null) return;
    state.stops.push(k);
    answer();
  }

  /** The stops' list: each with buttons to move it earlier or later and to remove it.  ``refocus``: the button a
   * person just pressed, [stop, which], focused again in the list drawn anew (the last stop removed: the field). */
  let refocus = null;
  function showStops() {
    const list = $("stops"), n = state.stops.length, again = refocus;
    refocus = null;
    list.textContent = "";
    state.stops.forEach((k, i) => {
      const item = V.el("li"), name = planner.name(net.ids[k]);
      item.append(V.el("span", {}, name));
      const buttons = [["\u2191", `move stop ${i + 1}, ${name}, earlier`, i - 1], ["\u2193", `move stop ${i + 1}, ${name}, later`, i + 1],
        ["\u00d7", `remove stop ${i + 1}, ${name}`, null]];
      buttons.forEach(([text, label, to], which) => {
        const b = V.el("button", { type: "button", title: label, "aria-label": label }, text);
        b.disabled = to !== null && (to < 0 || to >= n);
        b.addEventListener("click", () => {
          const [moved] = state.stops.splice(i, 1);
          if (to !== null) state.stops.splice(to, 0, moved);
          refocus = to !== null ? [to, which] : [Math.min(i, n - 2), which];
          answer();
        });
        item.append(b);
        if (again && again[0] === i && ((again[1] === which && !b.disabled) || (which === 2 && refocus === null))) refocus = b;
      });
      list.append(item);
    });
    const button = refocus;  // (the one pressed; moved to an end, where it is off: the stop's remove button)
    refocus = null;
    if (button) button.focus();
    else if (again) controls.addStop.focus();  // (the last stop removed, or the end reached: where the next is typed)
  }

  /** A stop typed (Enter or a change of the field): added, or the status line says what is wrong. */
  function addTyped() {
    const id = controls.addStop.value.trim();
    if (!id) return;
    const k = net.index.get(id);
    if (k === undefined || at(k) === null) {
      V.status(out.status, `${data.map}: no Eido or Pousa with id ${C.repr(id)}`, true);
      return;
    }
    controls.addStop.value = "";
    addStop(k);
  }
  controls.addStop.addEventListener("change", addTyped);
  controls.addStop.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    addTyped();
  });

  // Shift+click, a long press on a touch screen, Shift+Enter on the board: a stop.  The board's own events say
  // only where; these listeners (after the board's on the same element) keep what the hand did.
  const gesture = { shift: false, long: false, shiftKey: false, timer: 0, at: null };
  view.canvas.addEventListener("pointerdown", (e) => {
    Object.assign(gesture, { shift: e.shiftKey, long: false, at: [e.clientX, e.clientY] });
    clearTimeout(gesture.timer);
    if (!e.pointerType || e.pointerType === "mouse") return;
    gesture.timer = setTimeout(() => {
      const r = view.canvas.getBoundingClientRect();
      gesture.long = true;
      if (!boardLocked()) addStop(nodeAt(gesture.at[0] - r.left, gesture.at[1] - r.top));
    }, LONG_PRESS_MS);
  });
  view.canvas.addEventListener("pointermove", (e) => {
    if (gesture.at && Math.hypot(e.clientX - gesture.at[0], e.clientY - gesture.at[1]) > 8) clearTimeout(gesture.timer);
  });
  for (const type of ["pointerup", "pointercancel"]) view.canvas.addEventListener(type, () => clearTimeout(gesture.timer));
  view.canvas.addEventListener("keydown", (e) => { gesture.shiftKey = e.shiftKey; });
  view.canvas.addEventListener("keyup", (e) => { if (e.key === "Shift") gesture.shiftKey = false; });
  view.canvas.addEventListener("blur", () => { gesture.shiftKey = false; });

  // Dragging a stop moves it to where it is dropped.  The press is taken before the board sees it (a capturing
  // listener on the board's box), so the board does not pan; a press that does not move is a click there.
  let dragged = null;
  const canvasPoint = (e) => {
    const r = view.canvas.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  };
  /** The stop drawn under (px, py), the last drawn first (it is on top), or -1. */
  function stopAt(px, py) {
    for (let i = state.stops.length - 1; i >= 0; i--) {
      const [x, y] = view.toScreen(...at(state.stops[i]));
      if (Math.abs(x - px) <= 9 && Math.abs(y - py) <= 9) return i;
    }
    return -1;
  }
  const board = $("board");
  board.addEventListener("pointerdown", (e) => {
    if (e.target !== view.canvas || e.button || e.shiftKey || !routing() || playing()) return;
    const [px, py] = canvasPoint(e), i = stopAt(px, py);
    if (i < 0) return;
    e.stopPropagation();
    dragged = { i, id: e.pointerId, from: [px, py], at: [px, py], moved: false };
    view.canvas.setPointerCapture(e.pointerId);
  }, true);
  board.addEventListener("pointermove", (e) => {
    if (!dragged || e.pointerId !== dragged.id) return;
    e.stopPropagation();
    dragged.at = canvasPoint(e);
    dragged.moved = dragged.moved || Math.hypot(dragged.at[0] - dragged.from[0], dragged.at[1] - dragged.from[1]) > 4;
    if (dragged.moved) hover(nodeAt(...dragged.at));
    view.redraw();
  }, true);
  board.addEventListener("pointerup", (e) => {
    if (!dragged || e.pointerId !== dragged.id) return;
    e.stopPropagation();
    const d = dragged, k = nodeAt(...d.at);
    dragged = null;
    if (!d.moved) {
      gesture.long = gesture.shift = false;
      pickAt(...d.at);
    } else if (k >= 0 && at(k) !== null) {
      state.stops[d.i] = k;
      answer();
    } else view.redraw();  // (dropped off the board: the stop stays)
  }, true);
  board.addEventListener("pointercancel", (e) => {
    if (!dragged || e.pointerId !== dragged.id) return;
    dragged = null;
    view.redraw();
  }, true);

  /** The stops on the board: numbered squares (the one dragged under the pointer), and the token in play mode. */
  function drawJourney(ctx) {
    if (routing()) {
      state.stops.forEach((k, i) => {
        const [x, y] = dragged && dragged.moved && dragged.i === i ? dragged.at : view.toScreen(...at(k));
        ctx.fillStyle = STOP_COLOR;
        ctx.fillRect(x - 8, y - 8, 16, 16);
        ctx.lineWidth = 1.5;
        ctx.strokeStyle = "#fff";
        ctx.strokeRect(x - 8, y - 8, 16, 16);
        ctx.fillStyle = "#fff";
        ctx.font = "bold 11px sans-serif";
        ctx.textAlign = "center";
        ctx.textBaseline = "middle";
        ctx.fillText(String(i + 1), x, y + 0.5);
      });
    }
    const p = state.play;
    if (!p || !p.turns.length) return;
    const ends = new Map();  // each played turn's end: a grey disc with its number ("2,3": two turns ended there)
    for (const t of p.turns.slice(0, -1)) ends.set(t.at, [...(ends.get(t.at) || []), t.turn]);
    for (const [k, turns] of ends) if (k !== p.at) V.disc(ctx, ...view.toScreen(...at(k)), 8, "#555", turns.join(","));
    const [x, y] = view.toScreen(...at(p.at));
    ctx.beginPath();
    ctx.arc(x, y, 9, 0, 2 * Math.PI);
    ctx.fillStyle = "#111";
    ctx.fill();
    ctx.lineWidth = 3;
    ctx.strokeStyle = "#ffd400";
    ctx.stroke();
    if (p.owed) {  // mid-Eido: the token is on the Eido being entered, with what it still owes
      const said = `owes ${C.g(p.owed)} PtMv`;
      ctx.font = "bold 12px sans-serif";
      ctx.textAlign = "left";
      ctx.textBaseline = "middle";
      ctx.lineWidth = 3;
      ctx.strokeStyle = "#fff";
      ctx.strokeText(said, x + 13, y);
      ctx.fillStyle = "#111";
      ctx.fillText(said, x + 13, y);
    }
  }

  // -- play: the journey turn by turn, the rolls made at the table (issue 48, 3) -------------------------------------
  const history = $("history");
  const playing = () => mode() === "play" && state.played.length > 0;
  /** While turns are played the board shows the journey: a click there would change it (the controls still can). */
  const boardLocked = () => {
    if (!playing()) return false;
    V.status(out.status, "Playing: the board follows the rolls. Start from here (or Clear) to change the plan.");
    return true;
  };
  let playCache = { key: null, turns: [] };

  /** What the turns played depend on: the places, the actor, the rule and the debt carried in, as the plan says. */
  function playKey() {
    const p = snapshot();
    return JSON.stringify([p.start, p.goal, p.via, p.species, p.mount, p.with, p.dice, p.partial, p.debt]);
  }

  /** A change of what the turns were played on forgets them (Undo brings them back with it). */
  function keepPlayed() {
    const key = playKey();
    if (key !== state.playBase) state.played = [];
    state.playBase = key;
  }

  function forgetJourney() {
    state.stops = [];
    state.played = [];
    state.movers = [];  // (Clear clears the board: the other tokens too)
    state.placing = -1;
  }

  /**
   * One turn played from ``p`` ({at, owed, left}) with ``roll``: the first turn of the route from where the token is
   * -- through the stops not yet passed, the debt it owes paid first -- as `eidomap route --rolls ROLL --debt OWED
   * --via ...` gives it: where it ends (the Eido being entered, when the turn ends paying for it), the debt carried.
   */
  function playTurn(p, roll, o, turn) {
    const r = planner.route(net.ids[p.at], net.ids[state.goal], { ...o, ...(p.left.length ? { via: p.left } : {}),
      ...(p.owed ? { debt: p.owed } : {}), rolls: [roll] });
    if (!r.reachable) {
      throw new C.RequestError(`From ${planner.name(net.ids[p.at])} the goal cannot be reached${r.reason ? ": " + r.reason : ""}.`);
    }
    const t = r.turns[0];
    const passed = r.legs.slice(0, -1).filter((leg) => leg.arrival_turn !== null && leg.arrival_turn <= 1).length;
    return { turn, roll, budget: t.budget, spent: t.spent, lost: t.lost, steps: t.steps, end: t.end, debt: t.debt_after,
      reached: p.left.slice(0, passed), at: net.index.get(t.end), owed: t.debt_after, left: p.left.slice(passed),
      arrived: r.arrival_turn !== null && r.arrival_turn <= 1 };
  }

  /** The turns of ``rolls`` from the start ({turns, at, owed, left, arrived}); turns played before are kept. */
  function journey(o, rolls = state.played) {
    const key = playKey();
    if (playCache.key !== key) playCache = { key, turns: [] };
    const kept = playCache.turns;
    let same = 0;
    while (same < kept.length && same < rolls.length && kept[same].roll === rolls[same]) same += 1;
    if (same < rolls.length) kept.length = same;
    const debt = journeyOptions().debt || 0;
    let p = { at: state.start, owed: debt, left: state.stops.map((k) => net.ids[k]), arrived: state.start === state.goal };
    if (same) p = kept[same - 1];
    for (let i = same; i < rolls.length && !p.arrived; i++) {
      p = playTurn(p, rolls[i], o, i + 1);
      kept.push(p);
    }
    const turns = kept.slice(0, Math.min(rolls.length, kept.indexOf(p) + 1));
    return { turns, at: p.at, owed: p.owed, left: p.left, arrived: p.arrived };
  }

  /** Play a turn with ``roll`` (typed, or rolled by the page): the token moves, the plan is drawn again from there. */
  function playRoll(roll) {
    try {
      if (state.start < 0 || state.goal < 0) throw new C.RequestError("Click the start and the goal first, then play.");
      const o = options(), p = journey(o);
      if (p.arrived) throw new C.RequestError(`Arrived already, in turn ${p.turns.length}: Undo steps back a turn.`);
      journey(o, [...state.played, roll]);  // (a roll the dice cannot give: refused, nothing played)
    } catch (e) {
      if (!(e instanceof C.RequestError)) throw e;
      V.status(out.status, e.message, true);
      return;
    }
    state.played.push(roll);
    controls.playRoll.value = "";
    answer();
  }

  function playTyped() {
    const roll = C.whole(controls.playRoll.value);
    if (roll === null) {
      V.status(out.status, `the roll must be a whole number, got ${C.repr(controls.playRoll.value)}`, true);
      return;
    }
    playRoll(roll);
  }

  /** The actor's dice rolled by the page (each die 1 to its sides, the modifier added). */
  function rollDice() {
    let d;
    try {
      d = planner.actorOf(options()).dice;
    } catch (e) {
      if (!(e instanceof C.RequestError)) throw e;
      V.status(out.status, e.message, true);
      return;
    }
    let roll = d.plus;
    for (let i = 0; i < d.n; i++) roll += 1 + Math.floor(Math.random() * d.sides);
    controls.playRoll.value = String(roll);
    playRoll(roll);
  }

  /** A new plan from where the token is: its place the start, its debt the debt carried in, the stops left. */
  function startHere() {
    const p = state.play;
    if (!p || !p.turns.length) return;
    state.start = p.at;
    state.stops = p.left.map((v) => net.index.get(v));
    controls.debt.value = String(p.owed);
    controls.from.value = net.ids[p.at];
    state.played = [];
    answer();
  }

  $("play-turn").addEventListener("click", playTyped);
  $("play-dice").addEventListener("click", rollDice);
  $("play-here").addEventListener("click", startHere);
  controls.playRoll.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    playTyped();
  });

  /** Play mode's answer: the turns played, the token where they left it, the plan for the rest from there. */
  function showPlay(o) {
    if (state.goal < 0) {
      V.status(out.status, `Start: ${planner.name(net.ids[state.start])}. Click the goal, then play turn by turn.`);
      return;
    }
    const p = journey(o);
    state.play = p;
    showHistory(p);
    const last = p.turns[p.turns.length - 1], n = p.turns.length;
    const where = planner.name(net.ids[p.at]);
    if (p.arrived) {
      const owing = p.owed ? `, still ${C.g(p.owed)} PtMv to pay for it` : "";
      V.status(out.status, n ? `Arrived in ${where} in turn ${n}${owing}.` : "Already there.");
      return;
    }
    const r = planner.route(net.ids[p.at], net.ids[state.goal], { ...o, ...(p.left.length ? { via: p.left } : {}),
      ...(p.owed ? { debt: p.owed } : {}) });
    state.route = { ...r, ends: turnEnds(r, o), offset: n };
    out.text.textContent = planner.routeText(r);
    const done = n ? `Turn ${n}: rolled ${last.roll} (${C.g(last.budget)} PtMv), now in ${where}`
      + `${p.owed ? `, owing ${C.g(p.owed)} PtMv for it` : ""}. ` : "";
    if (!r.reachable) V.status(out.status, `${done}The goal cannot be reached from here.`);
    else {
      V.status(out.status, `${done}Turn ${n + 1}: type the roll and press Enter (or Roll). From here: expected`
        + ` ${C.fixed(r.expected_turns, 2)} more turns.`);
      distribution(r, n);
    }
  }

  /** The history: each turn played, its roll and PtMv, its steps, where it ended and the debt carried. */
  function showHistory(p) {
    if (!p.turns.length) return;
    const head = V.el("tr");
    for (const h of ["turn", "roll", "PtMv", "steps", "ended in", "debt"]) head.append(V.el("th", {}, h));
    history.append(V.el("caption", {}, "Turns played (Undo steps back a turn)"), head);
    for (const t of p.turns) {
      const row = V.el("tr");
      const steps = t.steps.map((st) => planner.name(st.node)).join(", ") || "-";
      const stops = t.reached.length ? ` (stop${t.reached.length > 1 ? "s" : ""} ${t.reached.map((v) => planner.name(v)).join(", ")} reached)` : "";
      const end = `${planner.name(t.end)}${t.arrived ? " (arrived)" : ""}${stops}`;
      for (const cell of [t.turn, t.roll, C.g(t.budget), steps, end, C.g(t.debt)]) row.append(V.el("td", {}, String(cell)));
      history.append(row);
    }
  }

  /** The way the token went, turn by turn: a dark line, each turn's end a grey disc with its number. */
  function drawTrail(ctx, view) {
    const p = state.play;
    if (!p.turns.length) return;
    const nodes = [state.start, ...p.turns.flatMap((t) => t.steps.map((st) => net.index.get(st.node)))];
    ctx.setLineDash([]);
    ctx.strokeStyle = "rgba(20,20,20,0.85)";
    ctx.lineWidth = view.lineWidth(3);
    ctx.beginPath();
    let jump = true;
    for (const k of nodes) {
      const xy = at(k);
      if (xy === null) { jump = true; continue; }  // (through the teleport hub: a jump)
      ctx[jump ? "moveTo" : "lineTo"](...xy);
      jump = false;
    }
    ctx.stroke();
  }

  // -- several tokens: a race to the goal (issue 48, 9) --------------------------------------------------------------
  // Token 1 is the plan above (its start, actor, stops and debt); each mover added is a token with its own actor
  // and start, racing it to the same goal.  The race is under the dice, as eidomap.answers.analysis.race gives it
  // from each token's P(arrived by turn k) (EidomapCommon.race): P(each arrives first) and P(a tie).
  const { TOKEN_COLORS } = V;  // (the battle page's race has the same)
  /** What a mover of a plan says: its start (required), species, mount and dice. */
  const MOVER_FIELDS = ["at", "species", "mount", "dice"];
  const tokenList = $("tokens"), moverSpecies = $("mover-species"), addMover = $("add-mover");
  for (const s of speciesNames) moverSpecies.append(V.el("option", { value: s }, s));
  moverSpecies.value = data.default_species;

  /** A mover as a plan holds it, "at=ID&species=S" (and its mount and dice when it has them). */
  function moverText(m) {
    const p = new URLSearchParams({ at: net.ids[m.at], species: m.species });
    if (m.mount) p.set("mount", m.mount);
    if (m.dice.trim() !== "1d6") p.set("dice", m.dice);
    return p.toString();
  }

  /** The mover of a plan's fields ``p`` (``what``: "the plan's token N"), or a RequestError saying what is wrong. */
  function readMover(p, what) {
    const id = p.get("at") || "", k = net.index.get(id);
    if (k === undefined || at(k) === null) throw new C.RequestError(`${what}'s start ${C.repr(id)} is no Eido or Pousa of ${data.map}`);
    const m = { at: k, species: p.get("species") || data.default_species, mount: p.get("mount") || "", dice: p.get("dice") || "1d6" };
    for (const s of [m.species, m.mount]) {
      if (s && !speciesNames.includes(s)) throw new C.RequestError(`${what}'s species ${C.repr(s)} is not in ${data.map}'s catalog`);
    }
    planner.actorOf(m);  // (dice it cannot read: its one line)
    return m;
  }

  /** A plan's movers, checked: at most seven. */
  const readMovers = (plan) => V.readMovers(plan.movers, MOVER_FIELDS, readMover);

  /** A mover's route options: its actor, the rule of the table (carry or forbid), under the dice. */
  const moverOptions = (m) => ({ species: m.species, ...(m.mount ? { mount: m.mount } : {}), dice: m.dice.trim() || "1d6",
    partial: partial() });

  /** The race, when there is one: each token's route to the goal under the dice, P(first) each, P(a tie). */
  function showRace() {
    if (!state.movers.length || state.start < 0 || state.goal < 0 || mode() !== "route") return;
    const one = routeOptions();
    delete one.rolls;  // (the rolls typed are token 1's itinerary: the race is under the dice)
    const tokens = [{ at: state.start, o: one }, ...state.movers.map((m) => ({ at: m.at, o: moverOptions(m) }))].map((t, i) => {
      let r;
      try {
        r = planner.route(net.ids[t.at], net.ids[state.goal], t.o);
      } catch (e) {
        if (!(e instanceof C.RequestError)) throw e;
        r = { error: e.message, reachable: false };
      }
      return { i, ...t, r, color: TOKEN_COLORS[i] };
    });
    const { first, tie } = C.raceRoutes(tokens.map((t) => t.r));
    state.race = { tokens: tokens.map((t, i) => ({ ...t, first: first[i] })), tie,
      tieSays: "two or more arrive in the first turn anyone does" };
    raceTable();
  }

  /** The race's legend and numbers: a row per token (its colour, start, actor, expected turns, P(first)), the tie's. */
  function raceTable() {
    const typed = controls.rolls.value.trim() ? " (the rolls typed give token 1's itinerary above, not the race)" : "";
    V.raceTable($("race"), state.race, state.race && `The race to ${planner.name(net.ids[state.goal])}, under the dice${typed}`,
      ["from", "who", "expected turns"], (t) => {
        const r = t.r;
        const how = r.error !== undefined ? r.error : !r.reachable ? `cannot reach the goal${r.reason ? ": " + r.reason : ""}`
          : C.fixed(r.expected_turns, 2);
        return [planner.name(net.ids[t.at]), r.actor || t.o.species, how];
      });
  }

  /** Each token's route in its colour, side by side where they share a way (a casing under each line). */
  function drawRace(ctx, view) {
    const n = state.race.tokens.length, step = view.lineWidth(3.5);
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    ctx.setLineDash([]);
    for (const [color, width] of [["#fff", 5], [null, 3]]) {
      for (const t of state.race.tokens) {
        if (!t.r.reachable) continue;
        const off = (t.i - (n - 1) / 2) * step, [dx, dy] = [0.8 * off, 0.6 * off];
        ctx.strokeStyle = color || t.color;
        ctx.lineWidth = view.lineWidth(width);
        ctx.beginPath();
        let jump = true;
        for (const s of t.r.path) {
          const p = at(net.index.get(s.node));
          if (p === null) { jump = true; continue; }  // (through the teleport hub: not drawn)
          ctx[jump ? "moveTo" : "lineTo"](p[0] + dx, p[1] + dy);
          jump = false;
        }
        ctx.stroke();
      }
    }
  }

  /** The tokens' starts: a disc each in its colour, numbered (Route mode, with movers). */
  function drawTokens(ctx) {
    if (mode() !== "route" || !state.movers.length) return;
    V.tokenDiscs(ctx, [state.start, ...state.movers.map((m) => m.at)].map((k) => (k >= 0 ? view.toScreen(...at(k)) : null)));
  }

  // The list of tokens (view.js TokenRows): token 1 (the plan above), then a row per mover -- its start (typed, or
  // picked on the board), species, mount, dice, and a button removing it.
  const tokens = new V.TokenRows({ state, list: tokenList, add: addMover, first: $("token-one"), pending: $("token-next"),
    board: view.canvas, where: "board", answer, say: (message, error) => V.status(out.status, message, error),
    own: (el) => ownChange.add(el),
    blocked: () => (mode() !== "route" ? "Tokens race in Route mode: choose Route first." : null), onArm: () => {},
    newMover: (k) => ({ at: k, species: moverSpecies.value, mount: "", dice: "1d6" }),
    placeName: (k) => net.ids[k],
    startOf: (id) => {
      const k = net.index.get(id);
      if (k === undefined || at(k) === null) throw new C.RequestError(`${data.map}: no Eido or Pousa with id ${C.repr(id)}`);
      return k;
    },
    start: { hint: "its id", attrs: { list: "places" } },
    fields: (what, field) => {
      const select = (label, none) => {
        const s = V.el("select", { "aria-label": `${what}'s ${label}` });
        if (none) s.append(V.el("option", { value: "" }, none));
        for (const name of speciesNames) s.append(V.el("option", { value: name }, name));
        return s;
      };
      const named = { species: field(select("species"), (m, v) => { m.species = v; }),
        mount: field(select("mount", "on foot"), (m, v) => { m.mount = v; }),
        dice: field(V.el("input", { type: "text", spellcheck: "false", class: "dice", "aria-label": `${what}'s dice` }),
          (m, v) => { m.dice = v.trim() || "1d6"; }) };
      return { named, nodes: [named.species, named.mount, named.dice] };
    },
    fill: (row, m) => {
      row.species.value = m.species;
      row.mount.value = m.mount;
      row.dice.value = m.dice;
    },
    firstText: () => `${state.start >= 0 ? planner.name(net.ids[state.start]) : "(the start above)"}, `
      + `${controls.species.value + (controls.mount.value ? ` on ${controls.mount.value}` : "")}: the plan above`,
    pendingText: () => `click the board where it starts (a ${moverSpecies.value})`,
  });
  const showTokens = () => tokens.show();

  /** A click (or Enter) on the board while a token's start is picked: it starts there (true: the click is taken). */
  function placeMover(k) {
    if (state.placing < 0 || mode() !== "route") return false;
    return at(k) === null || tokens.place(k);
  }

  ownChange.add(moverSpecies);  // (the next mover's species: nothing to answer again, the pending row says it)
  moverSpecies.addEventListener("change", showTokens);

  // -- the plan: in the page's address, in a file ----------------------------------------------------------
  const PLAN = { start: "one", goal: "one", species: "one", mount: "one", with: "many", dice: "one", partial: "one",
    rolls: "one", mode: "one", roll: "one", turns: "one", via: "many", debt: "one", played: "one", movers: "many" };

  /** The plan now: the places, the actor and the rolls, as the controls say them. */
  function snapshot() {
    const id = (k) => (k >= 0 ? net.ids[k] : "");
    return { start: id(state.start), goal: id(state.goal), species: controls.species.value, mount: controls.mount.value,
      with: Array.from(controls.party.querySelectorAll("input:checked"), (c) => c.value), dice: controls.dice.value,
      partial: partial(), rolls: controls.rolls.value.trim(), mode: mode(), roll: controls.roll.value,
      turns: controls.turns.value, via: state.stops.map(id), debt: controls.debt.value.trim() === "0" ? ""
        : controls.debt.value.trim(), played: state.played.join(","), movers: state.movers.map(moverText) };
  }

  /** A plan this map can take (its places, species and dice), or the one line saying what is wrong. */
  function checkPlan(plan) {
    for (const which of ["start", "goal"]) {
      if (plan[which] && !net.index.has(plan[which])) {
        throw new C.RequestError(`the plan's ${which} ${C.repr(plan[which])} is no Eido or Pousa of ${data.map}`);
      }
    }
    for (const stop of plan.via) {
      if (!net.index.has(stop)) throw new C.RequestError(`the plan's stop ${C.repr(stop)} is no Eido or Pousa of ${data.map}`);
    }
    for (const s of [plan.species, plan.mount, ...plan.with]) {
      if (s && !speciesNames.includes(s)) throw new C.RequestError(`the plan's species ${C.repr(s)} is not in ${data.map}'s catalog`);
    }
    const one = (name, known) => {
      if (plan[name] && !known.includes(plan[name])) {
        throw new C.RequestError(`the plan's ${name} must be one of ${known.join(", ")}, got ${C.repr(plan[name])}`);
      }
    };
    one("partial", ["carry", "forbid"]);
    one("mode", ["route", "turn", "within", "play"]);
    const a = planner.actorOf({ species: plan.species || data.default_species, mount: plan.mount, with: plan.with,
      dice: plan.dice || "1d6" });  // (dice it cannot read: its one line)
    if (plan.rolls) ints(plan.rolls, "the plan's rolls");
    if (plan.played) ints(plan.played, "the plan's rolls played").forEach((r) => a.dice.checkRoll(r));
    for (const name of ["roll", "turns", "debt"]) {
      if (plan[name] && C.whole(plan[name]) === null) throw new C.RequestError(`the plan's ${name} must be a whole number, got ${C.repr(plan[name])}`);
    }
    readMovers(plan);
  }

  function applyPlan(plan) {
    state.start = plan.start ? net.index.get(plan.start) : -1;
    state.goal = plan.goal ? net.index.get(plan.goal) : -1;
    controls.from.value = plan.start;
    controls.to.value = plan.goal;
    controls.species.value = plan.species || data.default_species;
    controls.mount.value = plan.mount;
    for (const box of controls.party.querySelectorAll("input")) box.checked = plan.with.includes(box.value);
    controls.dice.value = plan.dice || "1d6";
    document.querySelector(`input[name="partial"][value="${plan.partial || "carry"}"]`).checked = true;
    document.querySelector(`input[name="mode"][value="${plan.mode || "route"}"]`).checked = true;
    controls.rolls.value = plan.rolls;
    if (plan.roll) controls.roll.value = plan.roll;
    if (plan.turns) controls.turns.value = plan.turns;
    state.stops = plan.via.map((v) => net.index.get(v));
    controls.debt.value = plan.debt || "0";
    state.played = plan.played ? ints(plan.played, "the plan's rolls played") : [];
    state.playBase = playKey();  // (the rolls played are this plan's)
    state.movers = readMovers(plan);
    state.placing = -1;
    answer();
  }

  const link = new V.PlanLink({ kind: "eido", fields: PLAN, check: checkPlan, apply: applyPlan });
  V.planButtons(link, snapshot, (message, error = false) => V.status(out.status, message, error), data.map);

  // -- for scripts and tests: the same JSON as the command line -----------------------------------
  window.eidomap = {
    route: (from, to, o = {}) => planner.route(from, to, o),
    reach: (from, o = {}) => planner.reach(from, o),
    routeText: (from, to, o = {}) => planner.routeText(planner.route(from, to, o)),
    /**
     * A point of the page (CSS pixels) where a click picks the node ``id``: a Pousa's place; an Eido's place, or the
     * point of it farthest from the Pousas' circles (8 px is far enough) on a 16 x 16 grid over its box.
     */
    point: (id) => {
      const k = net.index.get(String(id));
      let [x, y] = view.toScreen(...at(k));
      const room = (px, py) => (nodeAt(px, py) === k ? pousaNear(px, py)[1] : -1);
      let most = room(x, y);
      if (k < nE && most < 8) {
        const [a, b] = view.toScreen(bbox[4 * k], bbox[4 * k + 1]), [c, d] = view.toScreen(bbox[4 * k + 2], bbox[4 * k + 3]);
        for (let i = 1; i < 16; i++) {
          for (let j = 1; j < 16; j++) {
            const px = a + ((c - a) * i) / 16, py = b + ((d - b) * j) / 16, r = room(px, py);
            if (r > most) [x, y, most] = [px, py, r];
          }
        }
      }
      const r = view.canvas.getBoundingClientRect();
      return [r.left + x, r.top + y];
    },
    state: () => ({ start: state.start >= 0 ? net.ids[state.start] : null, goal: state.goal >= 0 ? net.ids[state.goal] : null,
      hover: state.hover >= 0 ? net.ids[state.hover] : null }),
    /** The stops, in order (ids). */
    stops: () => state.stops.map((k) => net.ids[k]),
    /** The route the page shows (as eidomap.route gives it; in play mode, the plan from where the token is), or null. */
    shown: () => state.route && Object.fromEntries(Object.entries(state.route).filter(([k]) => k !== "ends" && k !== "offset")),
    /** Where the start's token is drawn (CSS pixels of the page): a press there drags it. */
    startPoint: () => {
      if (state.start < 0) return null;
      const [x, y] = view.toScreen(...at(state.start)), r = view.canvas.getBoundingClientRect();
      return [r.left + x, r.top + y];
    },
    /** Where stop ``i`` is drawn (CSS pixels of the page): a press there takes the stop. */
    stopPoint: (i) => {
      const [x, y] = view.toScreen(...at(state.stops[i])), r = view.canvas.getBoundingClientRect();
      return [r.left + x, r.top + y];
    },
    /** Play mode: the turns played and where they left the token ({turns, at, owed, left, arrived}), or null. */
    journey: () => state.play && { ...state.play, at: net.ids[state.play.at] },
    /** The preview: the place pointed at, whether the worker is still on it, its route and its words (or null). */
    preview: () => state.preview && { to: net.ids[state.preview.k], working: state.preview.working, route: state.preview.route,
      words: previewBox.textContent },
    /**
     * The race of the tokens (issue 48, 9), or null: each token's start, options and colour, its route's P(arrived by
     * turn k) and P(first), and P(a tie) -- analysis.race of eidomap.route(...).p_by_turn.
     */
    race: () => state.race && { to: net.ids[state.goal], tie: state.race.tie, tokens: state.race.tokens.map((t) => ({
      token: t.i + 1, from: net.ids[t.at], o: t.o, color: t.color, reachable: t.r.reachable, p_by_turn: t.r.p_by_turn || [],
      first: t.first, ...(t.r.error !== undefined ? { error: t.r.error } : {}) })) },
    /** The plan now (what the page's address and a saved plan hold). */
    plan: () => snapshot(),
    lastMs: 0,
    /** The last preview's time from the pointer's move to the route drawn and summed up (ms). */
    get previewMs() { return preview.lastMs; },
  };
  // the plan's link: the notebook widget (widget.mjs) follows the plans it publishes and restores the model's through it
  window.eidomap.link = link;
  link.opening(answer, (message) => V.status(out.status, message, true));
})();
