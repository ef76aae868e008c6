// The battle-grid planner page: the grid drawn square by square, the controls, creatures placed by
// clicking, and the answers of GridPlanner (grid.js) drawn over the grid and written beside it.
"use strict";

(function () {
  const C = EidomapCommon, V = PlannerView, G = GridPlanner;
  const data = JSON.parse(document.getElementById("eidomap-data").textContent);
  const planner = new G.Planner(data);
  const grid = planner.grid;
  const { rows, cols } = grid;
  const $ = (id) => document.getElementById(id);

  // -- the squares as one image, a pixel a square --------------------------------------------------
  const picture = document.createElement("canvas");
  picture.width = cols;
  picture.height = rows;
  // A colour for each mix of the hampering bits, each far from the others (an average of the three tints put
  // difficult-and-poorly-lit squares in the obstacle's grey); the legend lists the mixes the grid has.
  const { DIFFICULT: D, OBSTACLE: O, POOR_VISIBILITY: P } = G;
  const SQUARES = [[0, "clear", [247, 247, 240]], [D, "difficult", [201, 166, 107]], [O, "obstacle", [150, 150, 150]],
    [P, "poor visibility", [150, 190, 232]], [D | O, "difficult + obstacle", [125, 95, 60]],
    [D | P, "difficult + poor visibility", [150, 120, 200]], [O | P, "obstacle + poor visibility", [70, 110, 160]],
    [D | O | P, "difficult + obstacle + poor visibility", [95, 60, 120]], [G.IMPASSABLE, "impassable", [40, 40, 40]]];
  const shade = new Map(SQUARES.map(([f, , c]) => [f, c]));
  const flagsOf = (f) => (f & G.IMPASSABLE ? G.IMPASSABLE : f & (D | O | P));
  {
    const img = picture.getContext("2d").createImageData(cols, rows);
    for (let i = 0; i < rows * cols; i++) img.data.set([...shade.get(flagsOf(grid.flags[i])), 255], 4 * i);
    picture.getContext("2d").putImageData(img, 0, 0);
  }
  {
    const seen = new Set(Array.from(grid.flags, flagsOf)), key = $("terrains");
    for (const [f, name, [r, g, b]] of SQUARES) {
      if (!seen.has(f)) continue;
      const swatch = V.el("span", { class: "swatch" });
      swatch.style.background = `rgb(${r},${g},${b})`;
      key.append(V.el("span", { class: "key" }, ""), swatch, document.createTextNode(` ${name}`));
    }
  }
  picture.vector = squareShapes;

  /**
   * The squares as shapes (an SVG of the board): a run of like squares along a row is one rectangle, and each colour
   * one path of its runs; clear squares are the background.
   */
  function squareShapes(ctx) {
    const runs = new Map();
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols;) {
        const f = flagsOf(grid.flags[r * cols + c]);
        let end = c + 1;
        while (end < cols && flagsOf(grid.flags[r * cols + end]) === f) end++;
        if (f !== 0) runs.set(f, (runs.get(f) || "") + `M${c} ${r}h${end - c}v1h${c - end}Z`);
        c = end;
      }
    }
    ctx.fillStyle = `rgb(${shade.get(0).join(",")})`;
    ctx.fillRect(0, 0, cols, rows);
    for (const [f, d] of runs) {
      ctx.fillStyle = `rgb(${shade.get(f).join(",")})`;
      ctx.fill(V.path(d));
    }
  }

  const fileCreatures = [];
  for (let i = 0; i < rows * cols; i++) if (grid.occupant[i]) fileCreatures.push([i, grid.occupant[i]]);

  // -- state and controls -----------------------------------------------------------------------
  // ``preview``: the route to the square the pointer (or the keyboard's cursor) is on, before a click fixes it
  // ``played``: the moves played round by round (play mode: squares along the route, "e" the end of a round);
  // ``play`` what they did (journey())
  const state = { from: null, to: null, target: null, allies: [], enemies: [], cursor: null, reach: null, route: null,
    preview: null, played: [], playBase: null, play: null, movers: [], placing: -1, race: null };  // (tokens: showRace)
  const controls = { speed: $("speed"), mode: $("mode"), heavy: $("heavy"), flying: $("flying"), fatigued: $("fatigued"),
    from: $("from"), to: $("to"), used: $("used"), odd: $("odd"), play: $("play"), playSquares: $("play-squares") };
  controls.speed.value = data.speed;
  const clickDoes = () => document.querySelector('input[name="click"]:checked').value;
  const key = (sq) => G.square(sq);

  /** The command line's choices, by their names (Python's keywords: heavy_armor, allies, enemies). */
  function options() {
    const speed = C.whole(controls.speed.value);  // as the command line reads --speed (cli/plan.py: whole)
    if (speed === null) {
      throw new C.RequestError(`speed must be a whole number (at most ${C.MAX_DIGITS} digits 0-9), got ${C.repr(controls.speed.value)}`);
    }
    const o = { speed, mode: controls.mode.value, heavy_armor: controls.heavy.checked,
      flying: controls.flying.checked, fatigued: controls.fatigued.checked };
    if (state.allies.length) o.allies = state.allies.map(key);
    if (state.enemies.length) o.enemies = state.enemies.map(key);
    if (state.target && o.mode === "charge") o.target = key(state.target);
    const used = controls.used.value.trim() === "" ? 0 : C.whole(controls.used.value);
    if (used === null) {
      throw new C.RequestError(`used must be a whole number (at most ${C.MAX_DIGITS} digits 0-9), got ${C.repr(controls.used.value)}`);
    }
    if (used) o.used = used;  // (as d20 route --used, --odd-diagonals: a round already under way at the start)
    if (controls.odd.checked) o.odd_diagonals = true;
    return o;
  }

  const out = { status: $("status"), text: $("text"), legend: $("legend"), actions: $("actions") };

  /** Each action's colour: a route's stretch is drawn in the colour of the action that pays for it. */
  const ACTIONS = [["move", "#1f77b4"], ["double move", "#ff7f0e"], ["run", "#d62728"], ["run x3", "#d62728"],
    ["5-ft step", "#2ca02c"], ["full-round 5 ft", "#9467bd"]];
  const actionColor = new Map(ACTIONS);
  const colorOf = (action) => actionColor.get(action) || "#555";

  /** The key of the actions a route uses (its colours). */
  function actionKey(route) {
    out.actions.textContent = "";
    const used = route && route.rounds ? new Set(route.legs.map((l) => l.action)) : new Set();
    for (const [action, color] of ACTIONS) {
      if (!used.has(action)) continue;
      const swatch = V.el("span", { class: "swatch" });
      swatch.style.background = color;
      out.actions.append(V.el("span", { class: "key" }), swatch, document.createTextNode(` ${action}`));
    }
  }

  function answer() {
    state.reach = null;
    state.route = null;
    state.preview = null;
    state.play = null;
    state.race = null;
    previewBox.hidden = true;
    out.text.textContent = "";
    history.textContent = "";
    keepPlayed();
    $("play-box").hidden = !controls.play.checked;
    V.legend(out.legend, null);
    const t0 = performance.now();
    try {
      const o = options();
      if (!state.from) V.status(out.status, "Click a square: what this round reaches from it; then another: the route.");
      else if (state.to && controls.play.checked) showPlay(o);
      else if (!state.to) {
        state.reach = planner.reachAll(state.from, o);
        out.text.textContent = planner.reachText(state.from, o, state.reach);
        const n = Object.keys(state.reach.reachable).length;
        V.status(out.status, `${C.plural(n, "square")} this round` + (state.reach.full_round.length
          ? `, and ${state.reach.full_round.length} only by the full-round 5-ft move (hatched)` : "") + ".");
        shadeReach();
      } else {
        state.route = planner.routeAll(state.from, state.to, o);
        out.text.textContent = planner.routeText(state.from, state.to, o, state.route);
        const r = state.route;
        V.status(out.status, r.rounds === null ? `No way there${r.why ? ": " + r.why : ""}.`
          : `${C.plural(r.rounds, "round")}, ${r.feet} ft.`);
        showRace(o);
      }
    } catch (e) {
      if (!(e instanceof C.RequestError)) throw e;
      V.status(out.status, e.message, true);
      state.play = null;
      history.textContent = "";
    }
    actionKey(state.race ? null : state.route);
    raceTable();
    showTokens();
    link.publish(snapshot());  // the page's address holds the plan
    ask(state.cursor, t0);  // the preview of the plan chosen now
    view.paint();
    window.eidomap.lastMs = performance.now() - t0;  // the answer computed, written and drawn
  }

  // -- drawing (world: x = column, y = row, a square is 1 x 1) -----------------------------------------
  function drawBase(ctx, view) {
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(picture, 0, 0, cols, rows);
    if (view.scale >= 8) {  // the grid's lines, where they can be seen
      const [x0, y0] = view.toWorld(0, 0), [x1, y1] = view.toWorld(view.w, view.h);
      const c0 = Math.max(0, Math.floor(x0)), c1 = Math.min(cols, Math.ceil(x1));
      const r0 = Math.max(0, Math.floor(y0)), r1 = Math.min(rows, Math.ceil(y1));
      ctx.beginPath();
      for (let c = c0; c <= c1; c++) { ctx.moveTo(c, r0); ctx.lineTo(c, r1); }
      for (let r = r0; r <= r1; r++) { ctx.moveTo(c0, r); ctx.lineTo(c1, r); }
      ctx.lineWidth = view.lineWidth(0.6);
      ctx.strokeStyle = "rgba(0,0,0,0.25)";
      ctx.stroke();
    }
  }

  const squareOf = (name) => G.parseSquare(name, "square");
  const center = (sq) => [sq[1] + 0.5, sq[0] + 0.5];

  function drawOver(ctx, view) {
    const r = state.reach;
    if (r) {
      ctx.globalAlpha = 0.7;
      for (const [q, f] of Object.entries(r.reachable)) {
        const [row, col] = squareOf(q);
        ctx.fillStyle = V.ramp(1 - f / r.top);
        ctx.fillRect(col, row, 1, 1);
      }
      ctx.globalAlpha = 1;
      ctx.lineWidth = view.lineWidth(2);
      for (const q of r.full_round) {  // the full-round 5-ft move: hatched, apart
        const [row, col] = squareOf(q);
        ctx.strokeStyle = "#b00020";
        ctx.strokeRect(col + 0.08, row + 0.08, 0.84, 0.84);
        ctx.beginPath();
        for (const d of [0.25, 0.5, 0.75]) { ctx.moveTo(col + d, row + 0.08); ctx.lineTo(col + 0.08, row + d); }
        for (const d of [0.25, 0.5, 0.75]) { ctx.moveTo(col + 0.92, row + d); ctx.lineTo(col + d, row + 0.92); }
        ctx.stroke();
      }
    }
    if (state.play) drawTrail(ctx, view);
    if (state.race) drawRace(ctx, view);  // (token 1's route among them, in its colour)
    else drawRoute(ctx, view, state.route);
    if (state.preview) {
      ctx.globalAlpha = 0.8;
      drawRoute(ctx, view, state.preview.route);
      ctx.globalAlpha = 1;
    }
  }

  /** A route round by round, each round's stretch in the colour of its action. */
  function drawRoute(ctx, view, route) {
    if (!route || !route.rounds) return;
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    let prev = center(squareOf(route.path[0]));
    route.legs.forEach((leg) => {
      ctx.beginPath();
      ctx.moveTo(...prev);
      for (const q of leg.squares) ctx.lineTo(...center(squareOf(q)));
      ctx.strokeStyle = "#fff";
      ctx.lineWidth = view.lineWidth(7);
      ctx.stroke();
      ctx.strokeStyle = colorOf(leg.action);
      ctx.lineWidth = view.lineWidth(4);
      ctx.stroke();
      prev = center(squareOf(leg.squares[leg.squares.length - 1]));
    });
  }

  /** The round ends of a route: a disc each, in its action's colour, numbered by round. */
  function drawRounds(ctx, scr, route) {
    if (!route || !route.rounds) return;
    for (const leg of route.legs) {  // (in play mode, counted on from the round the token is in)
      V.disc(ctx, ...scr(squareOf(leg.squares[leg.squares.length - 1])), 10, colorOf(leg.action), String(leg.round + (route.offset || 0)));
    }
  }

  function drawScreen(ctx, view) {
    const scr = (sq) => view.toScreen(...center(sq));
    const size = Math.max(3, Math.min(12, view.scale * 0.38));
    const creature = (i, who) => {
      const [x, y] = scr([Math.floor(i / cols), i % cols]);
      if (x < -20 || y < -20 || x > view.w + 20 || y > view.h + 20) return;
      V.disc(ctx, x, y, size, who === G.ALLY ? "#2e7d32" : "#c62828", "");
    };
    for (const [i, who] of fileCreatures) creature(i, who);
    for (const sq of state.allies) creature(grid.at(sq), G.ALLY);
    for (const sq of state.enemies) creature(grid.at(sq), G.ENEMY);
    if (state.reach && view.scale >= 22) {
      ctx.font = `${Math.round(Math.min(12, view.scale * 0.35))}px sans-serif`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillStyle = "#000";
      for (const [q, f] of Object.entries(state.reach.reachable)) ctx.fillText(String(f), ...scr(squareOf(q)));
    }
    if (state.from) V.disc(ctx, ...scr(state.from), 6, "#000", "");
    if (state.to) V.star(ctx, ...scr(state.to), 16);  // the last round's end sits on it
    if (state.preview) V.star(ctx, ...scr(state.preview.sq), 12);
    if (!state.race) drawRounds(ctx, scr, state.route);
    if (state.movers.length) V.tokenDiscs(ctx, [state.from, ...state.movers.map((m) => m.at)].map((q) => q && scr(q)));
    if (state.preview) drawRounds(ctx, scr, state.preview.route);
    if (state.play) drawToken(ctx, scr);
    if (state.target) {
      const [x, y] = scr(state.target);
      ctx.beginPath();
      ctx.moveTo(x - 8, y - 8); ctx.lineTo(x + 8, y + 8); ctx.moveTo(x + 8, y - 8); ctx.lineTo(x - 8, y + 8);
      ctx.lineWidth = 3;
      ctx.strokeStyle = "#000";
      ctx.stroke();
    }
    if (state.cursor) {
      const [x, y] = view.toScreen(state.cursor[1], state.cursor[0]);
      ctx.lineWidth = 2.5;
      ctx.strokeStyle = "#e07a00";
      ctx.strokeRect(x, y, view.scale, view.scale);
    }
  }

  const view = new V.MapView($("map"), [0, 0, cols, rows], false, drawBase, drawOver);
  view.drawScreen = drawScreen;
  view.buttons($("zoom"));
  V.boardTools(view, data.source.split(/[\\/]/).pop());

  // -- the tooltip, clicks and keys ---------------------------------------------------------------------
  const tip = $("tip");
  const NAMES = [[G.DIFFICULT, "difficult"], [G.OBSTACLE, "obstacle"], [G.POOR_VISIBILITY, "poor visibility"]];

  function tipText(sq) {
    const i = grid.at(sq), f = grid.flags[i];
    const what = f & G.IMPASSABLE ? "impassable" : NAMES.filter(([h]) => f & h).map(([, n]) => n).join(" + ") || "clear";
    const lines = [`${key(sq)}: ${what}`];
    const who = grid.occupant[i] || (state.allies.some((a) => key(a) === key(sq)) ? G.ALLY
      : state.enemies.some((a) => key(a) === key(sq)) ? G.ENEMY : 0);
    if (who) lines.push(who === G.ALLY ? "an ally" : "an enemy");
    if (state.reach) {
      const ft = state.reach.reachable[key(sq)];
      if (ft !== undefined) lines.push(`this round: ${ft} ft`);
      else if (state.reach.full_round.includes(key(sq))) lines.push("only by the full-round 5-ft move");
    }
    return lines.join("\n");
  }

  function squareAt(px, py) {
    const [x, y] = view.toWorld(px, py);
    const r = Math.floor(y), c = Math.floor(x);
    return r >= 0 && r < rows && c >= 0 && c < cols ? [r, c] : null;
  }

  function hover(sq, since = performance.now()) {
    const moved = (sq && key(sq)) !== (state.cursor && key(state.cursor));
    state.cursor = sq;
    if (moved) ask(sq, since);
    if (!sq) tip.hidden = true;
    else {
      tip.textContent = tipText(sq);
      tip.hidden = false;
      const [x, y] = view.toScreen(...center(sq));
      tip.style.left = `${Math.min(Math.max(4, x + 14), view.w - tip.offsetWidth - 4)}px`;
      tip.style.top = `${Math.max(4, y + 14 + tip.offsetHeight > view.h ? y - 14 - tip.offsetHeight : y + 14)}px`;
    }
    view.redraw();
  }

  // -- the preview: with a start, the route to the square pointed at, drawn round by round before the click -------
  const previewBox = $("preview");

  /** What a click on ``sq`` would plan: a route from the start (null: the click would not plan one). */
  function question(sq) {
    if (!sq || !state.from || clickDoes() !== "plan" || playing() || state.placing >= 0 || key(sq) === key(state.from) || (state.to && key(sq) === key(state.to))) {
      return null;
    }
    let o;
    try {
      o = options();
    } catch (e) {
      if (!(e instanceof C.RequestError)) throw e;
      return null;  // (the status line already says what is wrong)
    }
    if (!["move", "double", "run"].includes(o.mode)) return null;  // (a charge or a step: this round's reach only)
    return { sq, kind: o.mode, key: JSON.stringify([key(state.from), key(sq), o]), question: { from: key(state.from), to: key(sq), o } };
  }

  function ask(sq, since) {
    const q = question(sq);
    if (q) preview.request(q, since);
    else if (state.preview || !previewBox.hidden) {
      preview.cancel();
      showPreview(null);
    }
  }

  function previewWords(q, r) {
    const to = q.question.to;
    if (r.error !== undefined) return `${to}: ${r.error}`;
    if (r.rounds === null) return `${to}: no way there${r.why ? ": " + r.why : ""}.`;
    return `${to}: ${C.plural(r.rounds, "round")}, ${r.feet} ft (${r.legs.map((l) => l.action).join(", ")}).`;
  }

  function showPreview(q, r = null, working = false) {
    if (q === null) {
      state.preview = null;
      previewBox.hidden = true;
    } else {
      state.preview = { sq: q.sq, key: q.key, route: r && r.error === undefined ? r : null, working };
      previewBox.textContent = working ? `${q.question.to}: working\u2026 (the pointer stays free)` : previewWords(q, r);
      previewBox.hidden = false;
    }
    view.paint();
  }

  /** On a big grid a route takes a while: the worker plans it, the pointer moves on. */
  const preview = new V.Preview({
    ask: (q) => planner.routeAll(q.question.from, q.question.to, q.question.o),
    slow: (q, ms) => (ms === undefined ? rows * cols > 250000 : ms > 25),
    show: (q, r, working) => { if (question(state.cursor)?.key === q.key) showPreview(q, r, working); },
    worker: { scripts: ["eidomap-common", "eidomap-grid"], data: $("eidomap-data").textContent,
      main: V.workerMain("(d) => new GridPlanner.Planner(d)", "(p, q) => p.routeAll(q.from, q.to, q.o)") },
  });

  function toggle(list, sq) {
    const k = list.findIndex((a) => key(a) === key(sq));
    if (k >= 0) list.splice(k, 1); else list.push(sq);
  }

  function click(sq) {
    if (!sq || boardLocked() || tokens.place(sq)) return;  // (a token's start being picked: the click is its)
    const does = clickDoes();
    if (does === "ally" || does === "enemy") {
      toggle(does === "ally" ? state.allies : state.enemies, sq);
      const other = does === "ally" ? state.enemies : state.allies;
      const k = other.findIndex((a) => key(a) === key(sq));
      if (k >= 0) other.splice(k, 1);
    } else if (does === "target") {
      state.target = state.target && key(state.target) === key(sq) ? null : sq;
    } else if (!state.from || ["charge", "step"].includes(controls.mode.value)) {
      state.from = sq;
      state.to = null;
    } else if (key(sq) === key(state.from)) {
      state.from = state.to = null;  // the next click chooses the start again
    } else {
      state.to = sq;
    }
    controls.from.value = state.from ? key(state.from) : "";
    controls.to.value = state.to ? key(state.to) : "";
    answer();
    hover(sq);
  }

  // Dragging the start's token: the preview follows the pointer, the release fixes the goal there (the start: nothing)
  V.dragFrom(view, (px, py) => {
    if (!state.from || clickDoes() !== "plan" || playing() || state.placing >= 0 || !["move", "double", "run"].includes(controls.mode.value)) return false;
    const [x, y] = view.toScreen(...center(state.from));
    return Math.hypot(px - x, py - y) <= Math.max(10, view.scale / 2);
  }, (px, py, since) => hover(squareAt(px, py), since), (px, py, moved) => {
    const sq = squareAt(px, py);
    if (!moved) click(sq);
    else if (sq && key(sq) !== key(state.from)) {
      state.to = sq;
      controls.to.value = key(sq);
      answer();
      hover(sq);
    } else hover(sq);
  });
  view.on("hover", (px, py, since) => hover(squareAt(px, py), since));
  view.on("leave", () => hover(null));
  view.on("pick", (px, py) => click(squareAt(px, py)));
  view.on("enter", () => click(state.cursor));
  view.on("escape", () => {
    if (tokens.cancel()) return;
    state.from = state.to = null;
    controls.from.value = controls.to.value = "";
    answer();
  });
  view.on("focus", () => {
    if (!state.cursor) hover(state.from || [Math.floor(rows / 2), Math.floor(cols / 2)]);
  });
  view.on("move", (dx, dy) => {
    const sq = state.cursor || [0, 0];
    const next = [Math.min(rows - 1, Math.max(0, sq[0] + dy)), Math.min(cols - 1, Math.max(0, sq[1] + dx))];
    const [x, y] = view.toScreen(...center(next));
    if (x < 0 || y < 0 || x > view.w || y > view.h) view.pan(view.w / 2 - x, view.h / 2 - y);
    hover(next);
  });

  function typed(input, which) {
    const v = input.value.trim();
    try {
      state[which] = v ? grid.check(G.parseSquare(v, which === "from" ? "start" : "goal"), which === "from" ? "start" : "goal") : null;
      answer();
    } catch (e) {
      if (!(e instanceof C.RequestError)) throw e;
      V.status(out.status, e.message, true);
    }
  }

  controls.from.addEventListener("change", () => typed(controls.from, "from"));
  controls.to.addEventListener("change", () => typed(controls.to, "to"));
  $("clear").addEventListener("click", () => {
    state.from = state.to = state.target = null;
    state.movers = [];  // (Clear clears the board: the other tokens too)
    controls.from.value = controls.to.value = "";
    answer();
  });
  $("creatures").addEventListener("click", () => {
    state.allies = [];
    state.enemies = [];
    answer();
  });
  $("controls").addEventListener("change", (e) => {
    if (![controls.from, controls.to, controls.playSquares].includes(e.target) && e.target.name !== "click"
      && !moverInputs.has(e.target)) answer();  // (a mover's row: its own handler answers)
  });
  $("controls").addEventListener("submit", (e) => e.preventDefault());

  // -- play: the route round by round, as the token moves at the table (issue 48, 3) --------------------------------
  const history = $("history");
  const playing = () => controls.play.checked && state.played.length > 0;
  /** While moves are played the board shows the journey: a click there would change it (the controls still can). */
  const boardLocked = () => {
    if (!playing()) return false;
    V.status(out.status, "Playing: the board follows the moves. Start from here (or Clear the plan) to change it.");
    return true;
  };

  /** The feet shaded: this round's reach, and its legend. */
  function shadeReach() {
    state.reach.top = Object.values(state.reach.reachable).reduce((a, f) => Math.max(a, f), 5);
    V.legend(out.legend, "feet this round", "0", String(state.reach.top), true);
  }

  /** What the moves played depend on: the squares, the mover, the creatures and the round under way at the start. */
  function playKey() {
    const { to, target, play, played, movers, ...rest } = snapshot();  // (the other tokens: not token 1's moves)
    return JSON.stringify([rest, to]);
  }

  /** A change of what the moves were played on forgets them (Undo brings them back with it). */
  function keepPlayed() {
    const k = playKey();
    if (k !== state.playBase) state.played = [];
    state.playBase = k;
  }

  /** The moves of a plan's text: squares moved ("3") or the end of a round ("e"), separated by commas. */
  function movesOf(text) {
    return text.split(",").map((m) => {
      if (m === "e") return m;
      const n = C.whole(m);
      if (n === null || n < 1) throw new C.RequestError(`the plan's moves played must be squares (1 or more) or e, got ${C.repr(m)}`);
      return n;
    });
  }

  /** The route's choices from where the token is (``p``): the feet of its round used, an odd diagonal among them. */
  function fromToken(o, p) {
    const { used, odd_diagonals: odd, ...q } = o;
    if (p.used) q.used = p.used;
    if (p.odd) q.odd_diagonals = true;
    return q;
  }

  /**
   * One move played from ``p`` ({at, used, odd, round}): ``m`` squares along the route from there -- round 1 of
   * `d20 route --used USED [--odd-diagonals]` from the token --, or "e", the round ends where the token is.  The
   * round ends when the token reaches the end of the route's round, or after a run or the full-round move (a
   * full-round action each); else it goes on, the feet moved used.
   */
  function playMove(p, m, o) {
    if (m === "e") {
      return { ...p, used: 0, odd: false, round: p.round + 1, row: { round: p.round, squares: [], feet: 0,
        action: "round ends", at: p.at, used: p.used } };
    }
    const r = planner.routeAll(key(p.at), key(state.to), fromToken(o, p));
    if (r.rounds === null) throw new C.RequestError(`From ${key(p.at)} the goal cannot be reached${r.why ? ": " + r.why : ""}.`);
    const first = r.legs.length && r.legs[0].round === 1 ? r.legs[0] : null;
    if (!first) throw new C.RequestError(`Round ${p.round} has no movement left on the route: End the round.`);
    if (m > first.squares.length) {
      throw new C.RequestError(`This round the route moves ${C.plural(first.squares.length, "square")}: type 1 to`
        + ` ${first.squares.length} (empty: all of them).`);
    }
    const at = squareOf(r.path[m]), feet = r.pathFeet[m], used = p.used + feet;
    const ends = m === first.squares.length || ["run", "full-round 5 ft"].includes(first.action);
    const arrived = key(at) === key(state.to);
    if (!ends && !arrived && (grid.occupant[grid.at(at)] || state.allies.some((a) => key(a) === key(at)))) {
      throw new C.RequestError(`${key(at)} is a creature's square: a move passes it but does not end there.`);
    }
    const action = ends ? first.action : `${G.Planner.mover(o).action(used / 5, false, false)} so far`;
    const row = { round: p.round, squares: first.squares.slice(0, m).map(squareOf), feet, action, at, used };
    if (ends) return { at, used: 0, odd: false, round: p.round + 1, arrived, row };
    return { at, used, odd: r.pathParity[m] === 1, round: p.round, arrived, row };
  }

  /** The moves of ``moves`` from the start: {round, at, used, odd, arrived, rows}. */
  function journey(o, moves = state.played) {
    let p = { at: state.from, used: o.used || 0, odd: !!o.odd_diagonals, round: 1, arrived: key(state.from) === key(state.to) };
    const rows = [];
    for (const m of moves) {
      if (p.arrived) throw new C.RequestError(`Arrived already, in round ${rows.length ? rows[rows.length - 1].round : 1}: Undo steps back a move.`);
      p = playMove(p, m, o);
      rows.push(p.row);
    }
    const { row, ...now } = p;
    return { ...now, rows };
  }

  /** Play a move (``m``: squares, or "e"): checked whole first (refused: nothing played), then the plan redrawn. */
  function play(m) {
    try {
      if (!state.from || !state.to) throw new C.RequestError("Click the start and the goal first, then play.");
      journey(options(), [...state.played, m]);
    } catch (e) {
      if (!(e instanceof C.RequestError)) throw e;
      V.status(out.status, e.message, true);
      return;
    }
    state.played.push(m);
    controls.playSquares.value = "";
    answer();
  }

  /** The squares typed (empty: as far as the route's round goes from the token). */
  function playTyped() {
    const typed = controls.playSquares.value.trim();
    if (typed === "") {
      const p = state.play;
      const r = p && !p.arrived ? planner.routeAll(key(p.at), key(state.to), fromToken(options(), p)) : null;
      const first = r && r.legs.length && r.legs[0].round === 1 ? r.legs[0] : null;
      play(first ? first.squares.length : r && r.rounds !== null ? "e" : 1);  // (no way, or arrived: play says why)
      return;
    }
    const n = C.whole(typed);
    if (n === null || n < 1) V.status(out.status, `the squares moved must be a whole number from 1, got ${C.repr(typed)}`, true);
    else play(n);
  }

  /** A new plan from where the token is: its square the start, the feet of its round used. */
  function startHere() {
    const p = state.play;
    if (!p || !p.rows.length) return;
    state.from = p.at;
    controls.from.value = key(p.at);
    controls.used.value = String(p.used);
    controls.odd.checked = p.odd;
    state.played = [];
    answer();
  }

  $("play-round").addEventListener("click", playTyped);
  $("play-end").addEventListener("click", () => play("e"));
  $("play-here").addEventListener("click", startHere);
  controls.playSquares.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    playTyped();
  });

  /** Play mode's answer: the moves played, the token where they left it, the route on from there and where the
   * token can still go this round (reach with the feet of the round used). */
  function showPlay(o) {
    const p = journey(o);
    state.play = p;
    showHistory(p);
    const where = key(p.at);
    if (p.arrived) {
      V.status(out.status, p.rows.length ? `Arrived on ${where} in round ${p.rows[p.rows.length - 1].round}.` : "Already there.");
      return;
    }
    const q = fromToken(o, p);
    const rest = planner.routeAll(where, key(state.to), q);
    state.route = { ...rest, offset: p.round - 1 };
    out.text.textContent = planner.routeText(where, key(state.to), q, rest);
    state.reach = planner.reachAll(where, q);
    shadeReach();
    const r = state.route, now = `Round ${p.round}${p.used ? ` (${p.used} ft of it used)` : ""}, on ${where}: `;
    V.status(out.status, r.rounds === null ? `${now}the goal cannot be reached from here${r.why ? ": " + r.why : ""}.`
      : `${now}${C.plural(r.rounds, "round")} to go, ${r.feet} ft. Type the squares the token moved along the route`
        + " (empty: the whole round) and press Enter.");
  }

  /** The history: each move played, its round, squares, feet, action, where it left the token, the feet used. */
  function showHistory(p) {
    if (!p.rows.length) return;
    const head = V.el("tr");
    for (const h of ["round", "squares", "ft", "action", "now on", "used (ft)"]) head.append(V.el("th", {}, h));
    history.append(V.el("caption", {}, "Rounds played (Undo steps back a move)"), head);
    for (const t of p.rows) {
      const row = V.el("tr");
      const now = `${key(t.at)}${key(t.at) === key(state.to) ? " (arrived)" : ""}`;
      for (const cell of [t.round, t.squares.length || "-", t.feet, t.action, now, t.used]) row.append(V.el("td", {}, String(cell)));
      history.append(row);
    }
  }

  /** The way the token went: a dark line through the squares it entered. */
  function drawTrail(ctx, view) {
    const squares = [state.from, ...state.play.rows.flatMap((t) => t.squares)];
    if (squares.length < 2) return;
    ctx.beginPath();
    squares.forEach((sq, i) => ctx[i ? "lineTo" : "moveTo"](...center(sq)));
    ctx.strokeStyle = "rgba(20,20,20,0.85)";
    ctx.lineWidth = view.lineWidth(3);
    ctx.stroke();
  }

  /** The token: a dark disc ringed in yellow where the moves left it, with the feet of its round used. */
  function drawToken(ctx, scr) {
    const p = state.play;
    if (!p.rows.length) return;
    const [x, y] = scr(p.at);
    ctx.beginPath();
    ctx.arc(x, y, 9, 0, 2 * Math.PI);
    ctx.fillStyle = "#111";
    ctx.fill();
    ctx.lineWidth = 3;
    ctx.strokeStyle = "#ffd400";
    ctx.stroke();
    if (p.used) {  // (on a white band: the SVG download draws fills and text, not a text's outline)
      const said = `${p.used} ft used`;
      ctx.fillStyle = "rgba(255,255,255,0.85)";
      ctx.fillRect(x + 11, y - 8, 7 * said.length + 4, 16);
      ctx.font = "bold 12px sans-serif";
      ctx.textAlign = "left";
      ctx.textBaseline = "middle";
      ctx.fillStyle = "#111";
      ctx.fillText(said, x + 13, y);
    }
  }

  // -- several tokens: a race to the goal (issue 48, 9) --------------------------------------------------------------
  // Token 1 is the plan above (its start, mover, round under way and stops); each mover added is a token with its own
  // start, speed, movement and gear, racing it to the same goal through the same creatures.  No dice on a battle
  // grid: each token's rounds to the goal are certain, so the fewest rounds arrive first -- one token alone first
  // (P(first) 1), several together a tie (P(tie) 1) -- as analysis.race gives it from each token's P(arrived by round
  // k), 0 before its round and 1 from it (EidomapCommon.raceRoutes, the board page's race).
  const { TOKEN_COLORS } = V;
  /** What a mover of a plan says: its start (required), speed, movement, heavy armour and flying ("yes"). */
  const MOVER_FIELDS = ["at", "speed", "mode", "heavy", "flying"];
  /** The movements a token races with (a charge and a 5-ft step are this round's reach only). */
  const RACE_MODES = ["move", "double", "run"];
  const tokenList = $("tokens"), addMover = $("add-mover");
  const moverInputs = new WeakSet();  // (the rows' fields: their own handlers answer, not the form's)

  /** A mover as a plan holds it, "at=R,C&speed=30" (and its movement and gear when not the default). */
  function moverText(m) {
    const p = new URLSearchParams({ at: key(m.at), speed: String(m.speed) });
    if (m.mode !== "move") p.set("mode", m.mode);
    if (m.heavy) p.set("heavy", "yes");
    if (m.flying) p.set("flying", "yes");
    return p.toString();
  }

  /** A mover's speed typed (``text``), or the one line saying what is wrong. */
  function moverSpeed(text, what) {
    const speed = C.whole(text);
    if (speed === null) throw new C.RequestError(`${what}'s speed must be a whole number (at most ${C.MAX_DIGITS} digits 0-9), got ${C.repr(text)}`);
    try {
      G.Planner.mover({ speed });
    } catch (e) {  // (a speed the rules refuse: its one line, naming the token)
      if (!(e instanceof C.RequestError)) throw e;
      throw new C.RequestError(`${what}'s ${e.message}`);
    }
    return speed;
  }

  /** The mover of a plan's fields ``p`` (``what``: "the plan's token N"), or a RequestError saying what is wrong. */
  function readMover(p, what) {
    const at = grid.check(G.parseSquare(p.get("at") || "", `${what}'s start`), `${what}'s start`);
    const mode = p.get("mode") || "move";
    if (!RACE_MODES.includes(mode)) throw new C.RequestError(`${what}'s mode must be one of ${RACE_MODES.join(", ")}, got ${C.repr(mode)}`);
    for (const f of ["heavy", "flying"]) {
      if (!["", "yes"].includes(p.get(f) || "")) throw new C.RequestError(`${what}'s ${f} must be yes or empty, got ${C.repr(p.get(f))}`);
    }
    const speed = moverSpeed(p.get("speed") ?? String(data.speed), what);
    return { at, speed, mode, heavy: p.get("heavy") === "yes", flying: p.get("flying") === "yes" };
  }

  /** A plan's movers, checked: at most seven. */
  const readMovers = (plan) => V.readMovers(plan.movers, MOVER_FIELDS, readMover);

  /** A mover's route options: its own speed, movement and gear; the creatures placed (everyone's); a fresh round. */
  function moverOptions(m, o) {
    const { used, odd_diagonals: odd, target, fatigued, ...shared } = o;
    return { ...shared, speed: m.speed, mode: m.mode, heavy_armor: m.heavy, flying: m.flying };
  }

  /** The race, when there is one (token 1's options ``o``): each token's route to the goal, P(first) each, P(a tie). */
  function showRace(o) {
    if (!state.movers.length || controls.play.checked) return;
    const tokens = [{ at: state.from, o }, ...state.movers.map((m) => ({ at: m.at, o: moverOptions(m, o) }))].map((t, i) => {
      let r;
      try {
        r = i === 0 ? state.route : planner.routeAll(key(t.at), key(state.to), t.o);
      } catch (e) {
        if (!(e instanceof C.RequestError)) throw e;
        r = { error: e.message, rounds: null };
      }
      // its arrival as analysis.race reads a route: P(arrived by round k) 0 before its round, 1 from it; none can
      // arrive (rounds null); reachable with no round: on the goal already
      const arrival = { reachable: r.rounds !== null, p_by_turn: r.rounds ? Array.from({ length: r.rounds }, (_, k) => +(k === r.rounds - 1)) : [] };
      return { i, ...t, r, arrival, color: TOKEN_COLORS[i] };
    });
    const { first, tie } = C.raceRoutes(tokens.map((t) => t.arrival));
    state.race = { tokens: tokens.map((t, i) => ({ ...t, first: first[i] })), tie,
      tieSays: "two or more arrive in the fewest rounds any token does" };
  }

  /** The race's legend and numbers: a row per token (its colour, start, mover, rounds, P(first)), the tie's. */
  function raceTable() {
    const who = (o) => `${o.speed} ft, ${o.mode}${o.heavy_armor ? ", heavy armour" : ""}${o.flying ? ", flying" : ""}`;
    V.raceTable($("race"), state.race, state.race && `The race to ${key(state.to)}: no dice, the fewest rounds arrive first`,
      ["from", "who", "rounds"], (t) => {
        const r = t.r;
        return [key(t.at), who(t.o), r.error !== undefined ? r.error : r.rounds === null
          ? `cannot reach the goal${r.why ? ": " + r.why : ""}` : `${r.rounds} (${r.feet} ft)`];
      });
  }

  /** Each token's route in its colour, side by side where they share squares (a casing under each line). */
  function drawRace(ctx, view) {
    const n = state.race.tokens.length, step = Math.min(0.12, 0.8 / n);
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    for (const [color, width] of [["#fff", 6], [null, 3.5]]) {
      for (const t of state.race.tokens) {
        if (!t.r.rounds) continue;
        const off = (t.i - (n - 1) / 2) * step;
        ctx.strokeStyle = color || t.color;
        ctx.lineWidth = view.lineWidth(width);
        ctx.beginPath();
        t.r.path.forEach((q, j) => ctx[j ? "lineTo" : "moveTo"](...center(squareOf(q)).map((v) => v + off)));
        ctx.stroke();
      }
    }
  }

  // The list of tokens (view.js TokenRows): token 1 (the plan above), then a row per mover -- its start (typed, or
  // picked on the grid), speed, movement, heavy armour, flying, and a button removing it.
  const tokens = new V.TokenRows({ state, list: tokenList, add: addMover, first: $("token-one"), pending: $("token-next"),
    board: view.canvas, where: "grid", answer, say: (message, error) => V.status(out.status, message, error),
    own: (el) => moverInputs.add(el),
    blocked: () => (controls.play.checked ? "Tokens race outside play mode: untick Play round by round first." : null),
    onArm: () => {
      preview.cancel();
      showPreview(null);
    },
    // (a new mover: token 1's speed, movement and gear, to change in its row)
    newMover: (sq) => ({ at: sq, speed: C.whole(controls.speed.value) ?? data.speed,
      mode: RACE_MODES.includes(controls.mode.value) ? controls.mode.value : "move", heavy: controls.heavy.checked,
      flying: controls.flying.checked }),
    placeName: key,
    startOf: (text, what) => grid.check(G.parseSquare(text, `${what}'s start`), `${what}'s start`),
    start: { hint: "R,C", attrs: {} },
    fields: (what, field) => {
      const named = {
        speed: field(V.el("input", { type: "number", min: "5", step: "5", "aria-label": `${what}'s speed (ft)` }),
          (m, v) => { m.speed = moverSpeed(v, what); }),
        mode: field(V.el("select", { "aria-label": `${what}'s movement` }), (m, v) => { m.mode = v; }) };
      for (const o of controls.mode.options) {
        if (RACE_MODES.includes(o.value)) named.mode.append(V.el("option", { value: o.value }, o.textContent));
      }
      const box = (name, label) => {
        named[name] = field(V.el("input", { type: "checkbox", "aria-label": `${what}: ${label}` }), (m, v) => { m[name] = v; });
        const l = V.el("label", { class: "inline" });
        l.append(named[name], document.createTextNode(` ${label}`));
        return l;
      };
      return { named, nodes: [named.speed, document.createTextNode(" ft "), named.mode, V.el("br"), box("heavy", "heavy armour"),
        box("flying", "flying")] };
    },
    fill: (row, m) => {
      row.speed.value = String(m.speed);
      row.mode.value = m.mode;
      row.heavy.checked = m.heavy;
      row.flying.checked = m.flying;
    },
    firstText: () => `${state.from ? key(state.from) : "(the start above)"}, ${controls.speed.value} ft: the plan above`,
    pendingText: () => "click the grid where it starts",
  });
  const showTokens = () => tokens.show();

  // -- the plan: in the page's address, in a file ----------------------------------------------------------
  const PLAN = { from: "one", to: "one", speed: "one", mode: "one", heavy: "one", flying: "one", fatigued: "one",
    ally: "many", enemy: "many", target: "one", used: "one", odd: "one", play: "one", played: "one", movers: "many" };
  const FLAGS = ["heavy", "flying", "fatigued", "odd", "play"];

  /** The plan now: the squares, the mover and the creatures placed. */
  function snapshot() {
    const sq = (q) => (q ? key(q) : "");
    const plan = { from: sq(state.from), to: sq(state.to), speed: controls.speed.value, mode: controls.mode.value,
      ally: state.allies.map(key), enemy: state.enemies.map(key), target: sq(state.target),
      used: ["", "0"].includes(controls.used.value.trim()) ? "" : controls.used.value.trim(), played: state.played.join(","),
      movers: state.movers.map(moverText) };
    for (const f of FLAGS) plan[f] = controls[f].checked ? "yes" : "";
    return plan;
  }

  const WHICH = { from: "start", to: "goal", target: "target", ally: "ally", enemy: "enemy" };
  const squareIn = (text, name) => grid.check(G.parseSquare(text, `the plan's ${WHICH[name]}`), `the plan's ${WHICH[name]}`);

  /** A plan this grid can take (squares on it, a speed and mode the rules know), or the one line saying what is wrong. */
  function checkPlan(plan) {
    for (const name of ["from", "to", "target"]) if (plan[name]) squareIn(plan[name], name);
    for (const name of ["ally", "enemy"]) for (const q of plan[name]) squareIn(q, name);
    const modes = Array.from(controls.mode.options, (o) => o.value);
    if (plan.mode && !modes.includes(plan.mode)) {
      throw new C.RequestError(`the plan's mode must be one of ${modes.join(", ")}, got ${C.repr(plan.mode)}`);
    }
    if (plan.speed) G.Planner.mover({ speed: C.whole(plan.speed) ?? plan.speed, mode: plan.mode || "move" });
    for (const f of FLAGS) {
      if (!["", "yes"].includes(plan[f])) throw new C.RequestError(`the plan's ${f} must be yes or empty, got ${C.repr(plan[f])}`);
    }
    if (plan.used && C.whole(plan.used) === null) throw new C.RequestError(`the plan's used must be a whole number, got ${C.repr(plan.used)}`);
    if (plan.played) movesOf(plan.played);
    readMovers(plan);
  }

  function applyPlan(plan) {
    const sq = (name) => (plan[name] ? squareIn(plan[name], name) : null);
    Object.assign(state, { from: sq("from"), to: sq("to"), target: sq("target"),
      allies: plan.ally.map((q) => squareIn(q, "ally")), enemies: plan.enemy.map((q) => squareIn(q, "enemy")) });
    controls.from.value = plan.from;
    controls.to.value = plan.to;
    controls.speed.value = plan.speed || String(data.speed);
    controls.mode.value = plan.mode || "move";
    for (const f of FLAGS) controls[f].checked = plan[f] === "yes";
    controls.used.value = plan.used || "0";
    state.played = plan.played ? movesOf(plan.played) : [];
    state.playBase = playKey();  // (the moves played are this plan's)
    state.movers = readMovers(plan);
    state.placing = -1;
    answer();
  }

  const link = new V.PlanLink({ kind: "grid", fields: PLAN, check: checkPlan, apply: applyPlan });
  V.planButtons(link, snapshot, (message, error = false) => V.status(out.status, message, error), data.source.split(/[\\/]/).pop());

  // -- for scripts and tests: the same JSON as `eidomap d20 reach --json` / `d20 route --json` ------------
  window.eidomap = {
    reach: (at, o = {}) => planner.reach(at, o),
    route: (from, to, o = {}) => planner.route(from, to, o),
    reachText: (at, o = {}) => planner.reachText(at, o),
    routeText: (from, to, o = {}) => planner.routeText(from, to, o),
    /** Where a square's centre is drawn, in the page's CSS pixels (to click it). */
    point: (sq) => {
      const [x, y] = view.toScreen(...center(G.parseSquare(sq, "square")));
      const r = view.canvas.getBoundingClientRect();
      return [r.left + x, r.top + y];
    },
    /** Play mode: the moves played and where they left the token ({round, at, used, odd, arrived, rows}), or null. */
    journey: () => state.play && { ...state.play, at: key(state.play.at),
      rows: state.play.rows.map((r) => ({ ...r, at: key(r.at), squares: r.squares.map(key) })) },
    /** The route drawn (as ``route`` gives it: ``d20 route --json``; in play mode, the plan from the token), or null. */
    shown: () => state.route && planner.json(state.route),
    /** The squares shaded: where the round can end from the start (in play mode: from the token, the feet of the
     * round already used counted), feet by square, or null. */
    shade: () => state.reach && state.reach.reachable,
    state: () => ({ from: state.from && key(state.from), to: state.to && key(state.to), allies: state.allies.map(key),
      enemies: state.enemies.map(key), cursor: state.cursor && key(state.cursor) }),
    /** The preview: the place pointed at, whether the worker is still on it, its route (as ``route`` gives it:
     * ``d20 route --json``) and its words (or null). */
    preview: () => state.preview && { to: key(state.preview.sq), working: state.preview.working,
      route: state.preview.route && planner.json(state.preview.route), words: previewBox.textContent },
    /** The plan now (what the page's address and a saved plan hold). */
    plan: () => snapshot(),
    /**
     * The race of the tokens (issue 48, 9), or null: each token's start, options and colour, its rounds and feet to the
     * goal (as ``route`` gives them: ``d20 route --json``), its arrival as a P(arrived by round k) of 0s and a 1, and
     * P(first) and P(a tie) -- analysis.race of those certain arrivals.
     */
    race: () => state.race && { to: key(state.to), tie: state.race.tie, tokens: state.race.tokens.map((t) => ({
      token: t.i + 1, from: key(t.at), o: t.o, color: t.color, rounds: t.r.rounds ?? null, feet: t.r.feet ?? null,
      p_by_turn: t.arrival.p_by_turn, first: t.first, ...(t.r.error !== undefined ? { error: t.r.error } : { why: t.r.why }) })) },
    /** Where the start's token is drawn (CSS pixels of the page): a press there drags it. */
    startPoint: () => state.from && window.eidomap.point(key(state.from)),
    lastMs: 0,
    /** The last preview's time from the pointer's move to the route drawn and summed up (ms). */
    get previewMs() { return preview.lastMs; },
  };
  // the plan's link (as the board page's): a plan restored through it, its refusal a RequestError
  window.eidomap.link = link;
  link.opening(answer, (message) => V.status(out.status, message, true));
})();
