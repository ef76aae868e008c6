// The Eido planner page (eido_page.js) as a person uses it, in Node: the controls, clicks and keys on the board,
// what it writes (the words of `eidomap route`, tests/data/planner/eido.json) and what it draws.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { golden, openPage, pageData, differs } = require("./harness.cjs");

const G = golden("eido.json");
const ROLLS = golden("common.json").rolls;
const DATA = pageData(G.pages.demo);
const page = openPage(G.pages.demo, "eido");
const { EidomapCommon: C, PlannerView: V } = page.scope;
const positions = C.array(DATA.positions);
const nE = DATA.n_eidos, nP = DATA.n_pousas;
const index = new Map(DATA.node_ids.map((id, k) => [id, k]));
const at = (id) => [positions[2 * index.get(id)], positions[2 * index.get(id) + 1]];

/** The controls set as the command line's options ``o`` say, the answer cleared. */
function choose(o = {}, mode = "route") {
  page.$("clear").click();  // (first: the mode's change answers no question left from the test before)
  page.set(`input[name="mode"][value="${mode}"]`, true);
  page.$("species").value = o.species || "human";
  page.$("mount").value = o.mount || "";
  for (const box of page.$("party").querySelectorAll("input")) box.checked = (o.with || []).includes(box.value);
  page.$("dice").value = o.dice === undefined ? "1d6" : o.dice;
  page.$(`controls`).querySelector(`input[name="partial"][value="${o.partial || "carry"}"]`).checked = true;
  page.$("rolls").value = o.rolls ? o.rolls.join(",") : "";
  if (o.roll !== undefined) page.$("roll").value = String(o.roll);
  if (o.turns !== undefined) page.$("turns").value = String(o.turns);
  page.$("clear").click();
}

const plain = (x) => JSON.parse(JSON.stringify(x));  // (an object of the page's scope, as this scope's)

/** The colours of the turns (tab10: up to ten turns). */
const TURNS = new Set(Array.from({ length: 10 }, (_, k) => V.turnColor(k + 1, 10)));

/** A click on the board where it picks ``id``. */
const pick = (id) => page.click(...page.eidomap.point(id));

test("clicking a start and a goal writes the words of eidomap route", () => {
  const inOrder = (party = []) => party.every((p, i) => i === 0 || DATA.species.names.indexOf(party[i - 1])
    < DATA.species.names.indexOf(p));  // (the page lists companions in the catalog's order)
  const said = G.questions.filter((q) => q.map === "demo" && q.text !== undefined && q.from !== q.to
    && inOrder(q.o.with) && q.o.via === undefined && q.o.debt === undefined);  // (stops, a debt: not clicked)
  assert.ok(said.length >= 60);
  for (const q of said) {
    choose(q.o);
    pick(q.from);
    assert.equal(page.eidomap.state().start, q.from);
    assert.match(page.text("status"), /^Start: .*\. Click the goal\.$/);
    pick(q.to);
    assert.deepEqual(plain(page.eidomap.state()), { start: q.from, goal: q.to, hover: q.to });
    assert.equal(page.text("text"), q.text, JSON.stringify(q));
    assert.equal(page.$("from").value, q.from);
    assert.equal(page.$("to").value, q.to);
  }
});

test("the status line sums the route up", () => {
  const cases = [
    [{ rolls: [3, 5, 2, 6] }, "bouza-vella", "porto-norte", "Arrives in turn 2."],
    [{ rolls: [1] }, "bouza-vella", "porto-norte", "Not there after the 1 roll given."],
    [{ rolls: [1, 1] }, "bouza-vella", "porto-norte", "Not there after the 2 rolls given."],
    [{}, "bouza-vella", "porto-norte", "Expected 2.161 turns; P(arrived by turn k) below; the turns' ends drawn for"
      + " average rolls (3.5 PtMv a turn)."],
    [{ species: "horse" }, "bouza-vella", "porto-sur", "The goal cannot be reached."],
  ];
  for (const [o, from, to, said] of cases) {
    choose(o);
    pick(from);
    pick(to);
    assert.equal(page.text("status"), said);
    assert.equal(page.$("status").getAttribute("role"), "status");
  }
  choose();
  page.set("#from", "bouza-vella");
  page.set("#to", "bouza-vella");
  assert.equal(page.text("status"), "Already there.");
});

test("under the dice the table and the bars give P(arrived by turn k), up to the first turn sure to 3 places", () => {
  choose();
  pick("bouza-vella");
  pick("porto-norte");
  const want = G.questions.find((q) => q.map === "demo" && q.op === "route" && q.from === "bouza-vella"
    && q.to === "porto-norte" && Object.keys(q.o).length === 0);
  const p = page.eidomap.route("bouza-vella", "porto-norte");
  if (want) assert.equal(differs(p, want.want), null);
  const rows = page.$("table").querySelectorAll("tr");
  assert.equal(page.$("table").querySelector("caption").textContent, "Arrival under the dice");
  assert.deepEqual(rows.map((r) => r.textContent), ["turn kP(arrived by k)", "10.167", "20.722", "30.954", "40.996",
    "51.000"]);
  const bars = page.$("chart").children;
  assert.equal(bars.length, 5);
  assert.deepEqual(bars.map((b) => b.style.height), plain(p.p_by_turn).slice(0, 5).map((x) => `${Math.max(1, 100 * x)}%`));
  assert.equal(bars[0].title, "turn 1: 0.167");
  choose({ rolls: [3, 5] });
  pick("bouza-vella");
  pick("porto-norte");
  assert.equal(page.$("table").children.length, 0);  // with rolls: the itinerary, no distribution
  assert.equal(page.$("chart").children.length, 0);
});

test("the route is drawn through its places, a colour a turn (with rolls, or average ones under the dice)", () => {
  for (const o of [{}, { rolls: [3, 5, 2, 6] }, { rolls: [1, 1] }, { species: "marino" }]) {
    choose(o);
    pick("bouza-vella");
    pick("porto-norte");
    page.context().log.length = 0;
    page.frames();
    const r = page.eidomap.route("bouza-vella", "porto-norte", { species: "human", ...o });
    const segments = [];
    const log = page.context().log;
    for (let i = 1; i < log.length; i++) {
      if (log[i].op === "lineTo" && log[i - 1].op === "moveTo") segments.push([log[i - 1].args, log[i].args]);
    }
    const places = r.path.map((s) => s.node).filter((id) => index.get(id) < nE + nP);
    for (let k = 1; k < places.length; k++) {
      const a = at(places[k - 1]), b = at(places[k]);
      assert.ok(segments.some(([p, q]) => p[0] === a[0] && p[1] === a[1] && q[0] === b[0] && q[1] === b[1]),
        `${places[k - 1]} -> ${places[k]} not drawn (${JSON.stringify(o)})`);
    }
    // a step through the teleport hub is a dotted jump, every other step of the line under the dice solid
    const hub = (a, b) => r.path.findIndex((st, i) => i > 0 && r.path[i - 1].node === a && st.node === b) < 0;
    for (let i = 1; i < log.length; i++) {
      if (log[i].op !== "stroke" || !TURNS.has(log[i].strokeStyle)) continue;
      const [from, to] = [log[i - 4].args, log[i - 3].args];  // moveTo, lineTo, setLineDash, the white, the colour
      const a = DATA.node_ids.find((id, k) => k < nE + nP && at(id)[0] === from[0] && at(id)[1] === from[1]);
      const b = DATA.node_ids.find((id, k) => k < nE + nP && at(id)[0] === to[0] && at(id)[1] === to[1]);
      assert.equal(log[i].lineDash.length, hub(a, b) ? 2 : 0, `${a} -> ${b}`);
    }
    const strokes = page.context().calls("stroke").map((c) => c.strokeStyle);
    if (o.rolls) {
      for (let t = 1; t <= r.turns.length; t++) {
        if (r.turns[t - 1].steps.length) assert.ok(strokes.includes(V.turnColor(t, r.turns.length)), `turn ${t}`);
      }
    } else {
      assert.ok(strokes.includes(V.turnColor(1, 10)));  // (turn 1: the first colour however many there are)
    }
  }
});

test("an unreachable goal draws no route", () => {
  choose({ species: "horse" });
  pick("bouza-vella");
  pick("porto-sur");
  page.context().log.length = 0;
  page.frames();
  assert.ok(!page.context().calls("stroke").some((c) => c.strokeStyle === "#c2185b"));
});

test("this turn's reach: the Eidos where the turn can end, shaded bright where the debt is least", () => {
  const asked = G.questions.filter((q) => q.map === "demo" && q.op === "reach" && q.o.roll !== undefined
    && !("error" in q.want) && !q.o.rolls);
  assert.ok(asked.length >= 10);
  for (const q of asked) {
    choose(q.o, "turn");
    pick(q.from);
    const n = Object.keys(q.want.reachable).length;
    assert.ok(page.text("status").endsWith(`with a roll of ${q.o.roll}: ${C.plural(n, "Eido")} where the turn can end.`),
      page.text("status"));
    const top = Math.max(1, ...Object.values(q.want.reachable));
    const legend = page.$("legend").children;
    assert.deepEqual(legend.map((e) => e.textContent), ["debt carried", "0", "", C.g(top)]);
    const stops = [1, 0.75, 0.5, 0.25, 0].map(V.ramp).join(",");  // bright at no debt
    assert.equal(legend[2].style.background, `linear-gradient(to right, ${stops})`);
  }
});

test("P(arrived within K turns): the Eidos where it is above 0, bright at 1", () => {
  const asked = G.questions.filter((q) => q.map === "demo" && q.op === "reach" && q.o.turns !== undefined
    && !("error" in q.want));
  assert.ok(asked.length >= 5);
  for (const q of asked) {
    choose(q.o, "within");
    pick(q.from);
    const n = Object.values(q.want.p_within).filter((p) => p > 0).length;
    assert.ok(page.text("status").endsWith(`: P(arrived within ${C.plural(q.o.turns, "turn")}) above 0 in`
      + ` ${C.plural(n, "Eido")}.`), page.text("status"));
    const legend = page.$("legend").children;
    assert.deepEqual(legend.map((e) => e.textContent), [`P(arrived within ${q.o.turns})`, "0", "", "1"]);
    assert.equal(legend[2].style.background, `linear-gradient(to right, ${[0, 0.25, 0.5, 0.75, 1].map(V.ramp).join(",")})`);
  }
});

test("the reach is shaded: each Eido's fill by its value, unreached ones grey", () => {
  choose({ roll: 2 }, "turn");
  pick("porto-sur");
  page.context().log.length = 0;
  page.frames();
  const fills = page.context().calls("fill").filter((c) => c.globalAlpha === 0.85);
  const r = page.eidomap.reach("porto-sur", { roll: 2 });
  const top = Math.max(1, ...Object.values(r.reachable));
  const colours = new Set(fills.map((c) => c.fillStyle));
  assert.ok(colours.has("#d9d9d9"));
  for (const debt of Object.values(r.reachable)) assert.ok(colours.has(V.ramp(Math.round(32 * (1 - debt / top)) / 32)));
  // each group's path holds its Eidos' outlines and nothing else: together every ring of every Eido once
  const rings = fills.reduce((acc, c) => acc + (c.args[0].d.match(/M/g) || []).length, 0);
  assert.equal(rings, C.array(DATA.eidos.ring).length - 1);
  assert.ok(fills.every((c) => /^(M[\d.]+ [\d.]+(L[\d.]+ [\d.]+)*Z)+$/.test(c.args[0].d)));
});

test("numbers typed are read as the command line reads them, and a refusal is the alert", () => {
  for (const r of ROLLS) {
    choose({ rolls: [] });
    page.$("rolls").value = r.text;
    pick("bouza-vella");
    pick("porto-norte");
    if (r.error) {
      assert.equal(page.text("status"), r.error, r.text);
      assert.equal(page.$("status").getAttribute("role"), "alert");
      assert.equal(page.$("status").className, "error");
      assert.equal(page.text("text"), "");
    } else if (r.value.every((x) => x >= 1 && x <= 6)) {
      assert.equal(page.text("text"), page.eidomap.routeText("bouza-vella", "porto-norte", { rolls: r.value }));
    }
  }
  for (const [field, mode, what] of [["roll", "turn", "the roll"], ["turns", "within", "turns"]]) {
    for (const text of ["\u0663", "3.0", "1000000000000", ""]) {
      choose({}, mode);
      page.$(field).value = text;
      pick("bouza-vella");
      assert.equal(page.text("status"), `${what} must be a whole number (at most 12 digits 0-9), got ${C.repr(text)}`);
    }
    choose({}, mode);
    page.$(field).value = " 2 ";
    pick("bouza-vella");
    assert.equal(page.$("status").getAttribute("role"), "status");
  }
});

test("dice that never give a point are refused on the page as on the command line (issue 44, item 8)", () => {
  for (const [mode, dice] of [["route", "1d1-1"], ["turn", "1d2-2"], ["within", "1d1-1"]]) {
    choose({ dice, roll: 0 }, mode);
    pick("bouza-vella");
    pick("porto-norte");
    assert.equal(page.text("status"), `human cannot move: with dice ${dice} and VMv 0 no turn gives a PtMv (the highest`
      + " roll plus VMv is 0)");
    assert.equal(page.text("text"), "");
  }
});

test("an empty dice field is 1d6; the start alone asks for the goal, nothing asks for the start", () => {
  choose({ dice: "" });
  assert.equal(page.text("status"), "Click the start, then the goal.");
  pick("bouza-vella");
  pick("porto-norte");
  assert.match(page.text("text"), /\(1d6 a turn, debt carried\)/);
  choose({}, "turn");
  assert.equal(page.text("status"), "Click where the turn starts.");
  choose({}, "within");
  assert.equal(page.text("status"), "Click where the turn starts.");
});

test("a click picks the Eido under it, a Pousa within 8 px before it, nothing off the board", () => {
  choose();
  for (const id of ["bouza-vella", "cr-4", "porto-norte", "mar-1"]) {
    page.$("clear").click();
    pick(id);
    assert.equal(page.eidomap.state().start, id);
  }
  page.$("clear").click();
  page.click(12, 22);  // the canvas' corner: no Eido there
  assert.equal(page.eidomap.state().start, null);
  page.click(-50, -50);
  assert.equal(page.eidomap.state().start, null);
});

test("typing a place: its id sets the start or the goal, an unknown one is named, an empty field clears it", () => {
  choose();
  page.set("#from", "bouza-vella");
  page.set("#to", "porto-norte");
  assert.deepEqual([page.eidomap.state().start, page.eidomap.state().goal], ["bouza-vella", "porto-norte"]);
  assert.ok(page.text("text").startsWith("Route bouza-vella"));
  page.set("#to", "nowhere");
  assert.equal(page.text("status"), "demo.geojson: no Eido or Pousa with id 'nowhere'");
  assert.equal(page.$("status").getAttribute("role"), "alert");
  page.set("#to", "  ");
  assert.equal(page.eidomap.state().goal, null);
  assert.match(page.text("status"), /^Start: bouza-vella "Bouza Vella"\. Click the goal\.$/);
});

test("swap, clear and a change of the controls answer again", () => {
  choose();
  pick("bouza-vella");
  pick("porto-norte");
  page.$("swap").click();
  assert.deepEqual(plain(page.eidomap.state()), { start: "porto-norte", goal: "bouza-vella", hover: "porto-norte" });
  assert.equal(page.$("from").value, "porto-norte");
  assert.equal(page.$("to").value, "bouza-vella");
  assert.ok(page.text("text").startsWith('Route porto-norte "Porto do Norte" -> bouza-vella'));
  page.set("#species", "horse");
  assert.match(page.text("text"), / for horse \(1d6\+3 a turn/);
  page.$("clear").click();
  assert.deepEqual(plain(page.eidomap.state()), { start: null, goal: null, hover: "porto-norte" });
  assert.equal(page.text("text"), "");
  assert.equal(page.$("from").value, "");
  assert.equal(page.$("to").value, "");
  assert.equal(page.$("legend").children.length, 0);
  pick("bouza-vella");
  pick("porto-norte");
  pick("xesteira");  // a third click moves the goal there (the route it previewed)
  assert.deepEqual([page.eidomap.state().start, page.eidomap.state().goal], ["bouza-vella", "xesteira"]);
  pick("bouza-vella");  // a click on the start: none, the next click chooses it again
  assert.deepEqual([page.eidomap.state().start, page.eidomap.state().goal], [null, null]);
  pick("xesteira");
  assert.deepEqual([page.eidomap.state().start, page.eidomap.state().goal], ["xesteira", null]);
  const submit = page.$("controls").dispatch("submit");
  assert.ok(submit.defaultPrevented);
});

test("the controls list every species, as mount and companion too", () => {
  const names = DATA.species.names;
  assert.deepEqual(page.$("species").options.map((o) => o.value), names);
  assert.deepEqual(page.$("mount").options.map((o) => o.value), ["", ...names]);
  assert.deepEqual(page.$("party").querySelectorAll("input").map((b) => b.value), names);
  const human = names.indexOf("human");
  assert.equal(page.$("species").options[human].textContent, `human: ${DATA.species.labels[human]}`);
  assert.equal(page.$("places").children.length, nE + nP);
  choose({ with: ["cow", "dog"], mount: "horse" });
  pick("bouza-vella");
  pick("porto-norte");
  const party = names.filter((n) => n === "cow" || n === "dog").map((n) => ` with ${n}`).join("");
  assert.ok(page.text("text").includes(` for human on horse${party} (1d6 a turn`), page.text("text"));
});

test("the tooltip names the Eido, its terrain, its region and what entering costs the actor chosen", () => {
  choose({ roll: 4 }, "turn");
  pick("porto-sur");
  const [x, y] = page.eidomap.point("portela");
  page.pointer("pointermove", x, y);
  assert.equal(page.$("tip").hidden, false);
  const lines = page.text("tip").split("\n");
  assert.equal(lines[0], 'portela "A Portela"');
  assert.ok(lines.includes("terrain: Rocks") && lines.includes("region: norte"));
  assert.ok(lines.includes("PtMv to enter (human): 3"));
  const debt = page.eidomap.reach("porto-sur", { roll: 4 }).reachable.portela;
  assert.equal(lines[lines.length - 1], debt === undefined ? "this turn cannot end here"
    : `this turn can end here, debt ${C.g(debt)}`);
  page.set("#species", "boat");
  assert.ok(page.text("tip").includes("PtMv to enter (boat): cannot enter"));
  choose({ turns: 2 }, "within");
  pick("porto-sur");
  page.pointer("pointermove", x + 1, y);
  const p = page.eidomap.reach("porto-sur", { turns: 2 }).p_within.portela;
  assert.ok(page.text("tip").endsWith(`P(arrived within the turns): ${C.fixed(p, 4)}`));
  const [px, py] = page.eidomap.point("cr-4");
  page.pointer("pointermove", px, py);
  assert.equal(page.text("tip"), `Pousa cr-4\nroad: ${DATA.pousa_roads[index.get("cr-4") - nE]}`);
  page.canvas.dispatch("pointerleave");
  assert.equal(page.$("tip").hidden, true);
  assert.equal(page.eidomap.state().hover, null);
});

test("the keyboard: focus picks a place, arrows go to a neighbour that way, Enter chooses, Escape clears", () => {
  choose();
  page.canvas.dispatch("pointerleave");
  page.canvas.focus();
  const first = page.eidomap.state().hover;
  assert.ok(first !== null && index.get(first) < nE);
  page.key("Enter");
  assert.equal(page.eidomap.state().start, first);
  let moved = first;
  for (const key of ["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"]) {
    page.key(key);
    moved = page.eidomap.state().hover;
    if (moved !== first) break;
  }
  assert.notEqual(moved, first);
  const indptr = C.array(DATA.net.indptr), dst = C.array(DATA.net.dst);
  const k = index.get(first), m = index.get(moved);
  assert.ok(dst.subarray(indptr[k], indptr[k + 1]).includes(m), `${moved} is no neighbour of ${first}`);
  page.key("Enter");
  assert.deepEqual([page.eidomap.state().start, page.eidomap.state().goal], [first, moved]);
  assert.ok(page.text("text").startsWith("Route "));
  page.key("Escape");
  assert.deepEqual([page.eidomap.state().start, page.eidomap.state().goal], [null, null]);
  assert.equal(page.text("text"), "");
});

test("the board: terrains filled, borders, streams, roads, each Pousa a disc and each fountain a diamond", () => {
  const base = page.document.made.find((e) => e.localName === "canvas" && e.context && e.context.calls("fill")
    .some((c) => c.fillStyle === DATA.colors.fountain)).context;
  base.log.length = 0;
  page.resize();  // the base drawn again
  page.frames();
  const fills = base.calls("fill");
  for (const [t, colour] of DATA.terrain_colors.entries()) {
    if (DATA.node_ids.some((_, k) => k < nE && C.array(DATA.net.node_terrain)[k] === t)) {
      assert.ok(fills.some((c) => c.fillStyle === colour && c.args[1] === "evenodd"), DATA.terrain_names[t]);
    }
  }
  const strokes = base.calls("stroke").map((c) => c.strokeStyle);
  for (const colour of [DATA.colors.road, DATA.colors.stream, "rgba(40,40,40,0.8)"]) assert.ok(strokes.includes(colour));
  const fountains = C.array(DATA.fountains);
  assert.ok(fountains.length >= 4);
  const diamonds = base.calls("moveTo").filter((c) => c.fillStyle === DATA.colors.fountain);
  assert.equal(diamonds.length, fountains.length / 2);
  for (let f = 0; f < fountains.length; f += 2) {
    assert.ok(diamonds.some((c) => c.args[0] === fountains[f] && c.args[1] < fountains[f + 1]), `fountain ${f / 2}`);
  }
  const discs = base.calls("arc").filter((c) => c.fillStyle === "#fff");
  assert.equal(discs.length, nP);
  for (let k = nE; k < nE + nP; k++) {
    assert.ok(discs.some((c) => c.args[0] === positions[2 * k] && c.args[1] === positions[2 * k + 1]));
  }
});

// -- issue 48, 2-3: stops and a debt carried in, from the board and the controls ------------------------------------
test("stops shift-clicked on the board and a debt typed give the words of eidomap route --via --debt", () => {
  const inOrder = (party = []) => party.every((p, i) => i === 0 || DATA.species.names.indexOf(party[i - 1])
    < DATA.species.names.indexOf(p));
  const said = G.questions.filter((q) => q.map === "demo" && q.text !== undefined && q.from !== q.to
    && inOrder(q.o.with) && (q.o.via !== undefined || q.o.debt !== undefined));
  assert.ok(said.length >= 60);
  for (const q of said.filter((_, i) => i % 10 === 0)) {  // (every tenth: each click plans the journey again)
    choose(q.o);
    page.set("#debt", String(q.o.debt || 0));
    pick(q.from);
    pick(q.to);
    for (const stop of q.o.via || []) {
      const [x, y] = page.eidomap.point(stop);
      page.pointer("pointerdown", x, y, { shiftKey: true });
      page.pointer("pointerup", x, y, { shiftKey: true });
    }
    assert.deepEqual(plain(page.eidomap.stops()), q.o.via || []);
    assert.deepEqual(plain(page.eidomap.state()), { start: q.from, goal: q.to, hover: (q.o.via || [q.to]).at(-1) });
    assert.equal(page.text("text"), q.text, JSON.stringify(q));
  }
  page.set("#debt", "0");
  choose();
  assert.deepEqual(plain(page.eidomap.stops()), []);  // (Clear forgets the stops too)
});

test("the stops' list moves and removes stops, and a stop is typed by its id", () => {
  choose();
  pick("bouza-vella");
  pick("porto-norte");
  for (const stop of ["portela", "laxes", "monte-louro"]) page.set("#add-stop", stop);
  assert.equal(page.$("add-stop").value, "");
  assert.deepEqual(plain(page.eidomap.stops()), ["portela", "laxes", "monte-louro"]);
  const buttons = (i) => page.$("stops").children[i].querySelectorAll("button");
  assert.deepEqual([0, 1, 2].map((i) => buttons(i).map((b) => b.disabled)),
    [[true, false, false], [false, false, false], [false, true, false]]);  // (no earlier than the first, no later than the last)
  buttons(0)[1].click();  // portela later
  assert.deepEqual(plain(page.eidomap.stops()), ["laxes", "portela", "monte-louro"]);
  assert.equal(page.document.activeElement.getAttribute("aria-label"), 'move stop 2, portela "A Portela", later');
  buttons(2)[2].click();  // monte-louro removed
  assert.deepEqual(plain(page.eidomap.stops()), ["laxes", "portela"]);
  assert.match(page.text("text"), /^ {2}via laxes .*, portela "A Portela"$/m);
  page.set("#add-stop", "nowhere");
  assert.equal(page.text("status"), `${DATA.map}: no Eido or Pousa with id 'nowhere'`);
  assert.deepEqual(plain(page.eidomap.stops()), ["laxes", "portela"]);
  choose();
});
