// The battle-grid planner page (grid_page.js) as a person uses it, in Node: clicks that plan, place creatures and
// a charge's target; the words of `eidomap d20 reach` / `d20 route` (tests/data/planner/grid.json); what it draws.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { golden, openPage, pageData } = require("./harness.cjs");

const G = golden("grid.json");
const page = openPage(G.pages["d20-battle.txt"], "grid");
const { EidomapCommon: C, PlannerView: V } = page.scope;
const DATA = pageData(G.pages["d20-battle.txt"]);
const plain = (x) => JSON.parse(JSON.stringify(x));
const name = (sq) => sq.join(",");

/** The controls set as the command line's options ``o`` say (creatures placed by clicks), the plan cleared. */
function choose(o = {}) {
  page.$("creatures").click();
  page.$("clear").click();
  page.$("speed").value = String(o.speed === undefined ? 30 : o.speed);
  page.$("mode").value = o.mode || "move";
  page.$("heavy").checked = !!o.heavy_armor;
  page.$("flying").checked = !!o.flying;
  page.$("fatigued").checked = !!o.fatigued;
  for (const [side, squares] of [["ally", o.allies || []], ["enemy", o.enemies || []]]) {
    page.set(`input[name="click"][value="${side}"]`, true);
    for (const sq of new Set(squares.map(name))) page.click(...page.eidomap.point(sq));
  }
  if (o.target) {
    page.set('input[name="click"][value="target"]', true);
    page.click(...page.eidomap.point(name(o.target)));
  }
  page.set('input[name="click"][value="plan"]', true);
  page.$("mode").dispatch("change");
}

const square = (sq) => page.click(...page.eidomap.point(name(sq)));

test("a click shows this round's reach, a second the route: the words of eidomap d20 reach and d20 route", () => {
  const said = G.questions.filter((q) => q.grid === "d20-battle.txt" && q.text !== undefined
    && new Set((q.o.allies || []).concat(q.o.enemies || []).map(name)).size
      === (q.o.allies || []).length + (q.o.enemies || []).length);
  assert.ok(said.length >= 20);
  for (const q of said) {
    choose(q.o);
    square(q.from);
    if (q.op === "reach") {
      assert.equal(page.text("text"), q.text, JSON.stringify(q));
      const n = Object.keys(q.want.reachable).length, full = q.want.full_round.length;
      assert.equal(page.text("status"), `${C.plural(n, "square")} this round`
        + (full ? `, and ${full} only by the full-round 5-ft move (hatched)` : "") + ".");
    } else {
      if (["charge", "step"].includes(q.o.mode)) continue;
      square(q.to);
      assert.equal(page.text("text"), q.text, JSON.stringify(q));
      const r = q.want;
      assert.equal(page.text("status"), r.rounds === null ? page.text("status")
        : `${C.plural(r.rounds, "round")}, ${r.feet} ft.`);
    }
    assert.deepEqual(plain(page.eidomap.state()).allies, (q.o.allies || []).map(name));
  }
});

test("an answer searches once: the words are written from the reach or the route drawn", () => {
  const P = page.scope.GridPlanner.Planner.prototype, { reachAll, routeAll } = P, runs = [];
  P.reachAll = function (...a) { runs.push("reach"); return reachAll.apply(this, a); };
  P.routeAll = function (...a) { runs.push("route"); return routeAll.apply(this, a); };
  try {
    choose();
    runs.length = 0;
    square([13, 0]);
    assert.deepEqual(runs, ["reach"]);
    square([6, 10]);
    assert.deepEqual(runs, ["reach", "route"]);
    assert.match(page.text("text"), /^13,0 -> 6,10: /);
  } finally {
    Object.assign(P, { reachAll, routeAll });
  }
});

test("Clear empties the plan and its words", () => {
  choose();
  square([13, 0]);
  square([0, 21]);
  assert.ok(page.text("text").startsWith("13,0 -> 0,21: "));
  page.$("clear").click();
  assert.equal(page.text("text"), "");
  assert.deepEqual(plain(page.eidomap.state()), { from: null, to: null, allies: [], enemies: [], cursor: "0,21" });
  assert.equal(page.$("from").value, "");
  assert.equal(page.$("to").value, "");
  assert.equal(page.text("status"), "Click a square: what this round reaches from it; then another: the route.");
  square([13, 0]);
  page.key("Escape");
  assert.equal(page.text("text"), "");
  assert.equal(plain(page.eidomap.state()).from, null);
});

test("no way there is said, with why", () => {
  choose();
  square([0, 0]);
  square([3, 5]);  // an ally from the grid file stands there
  assert.equal(page.text("status"), "No way there: the goal 3,5 is occupied by an ally: no move ends there.");
  assert.equal(page.text("text"), "no way from 0,0 to 3,5: the goal 3,5 is occupied by an ally: no move ends there\n");
  choose({ enemies: [[12, 0], [12, 1], [13, 1]] });
  square([13, 0]);
  square([0, 21]);
  assert.equal(page.text("status"), "No way there.");
});

test("the reach is drawn: each square's feet as a shade, the full-round move hatched apart", () => {
  choose({ speed: 5 });
  square([8, 5]);
  page.context().log.length = 0;
  page.frames();
  const r = page.eidomap.reach("8,5", { speed: 5 });
  const top = Math.max(5, ...Object.values(r.reachable));
  const cells = page.context().calls("fillRect").filter((c) => c.globalAlpha === 0.7);
  assert.equal(cells.length, Object.keys(r.reachable).length);
  for (const c of cells) {
    const feet = r.reachable[`${c.args[1]},${c.args[0]}`];
    assert.equal(c.fillStyle, V.ramp(1 - feet / top));
    assert.deepEqual(c.args.slice(2), [1, 1]);
  }
  const hatched = page.context().calls("strokeRect").filter((c) => c.strokeStyle === "#b00020");
  assert.deepEqual(hatched.map((c) => [c.args[1] - 0.08, c.args[0] - 0.08].map((v) => Math.round(v)).join(",")).sort(),
    plain(r.full_round).sort());
  assert.ok(r.full_round.length > 0);
  assert.match(page.text("status"), /only by the full-round 5-ft move \(hatched\)\.$/);
  const legend = page.$("legend").children;
  assert.deepEqual(legend.map((e) => e.textContent), ["feet this round", "0", "", String(top)]);
  assert.equal(legend[2].style.background, `linear-gradient(to right, ${[1, 0.75, 0.5, 0.25, 0].map(V.ramp).join(",")})`);
});

test("the route is drawn square by square, each round in its action's colour, each round's end numbered", () => {
  choose({ mode: "double" });
  square([13, 0]);
  square([0, 21]);
  page.context().log.length = 0;
  page.frames();
  const r = page.scope.GridPlanner ? plain(new page.scope.GridPlanner.Planner(DATA).routeAll("13,0", "0,21",
    { mode: "double" })) : null;
  const log = page.context().log;
  const centre = (q) => { const [a, b] = q.split(",").map(Number); return [b + 0.5, a + 0.5]; };
  let prev = centre(r.path[0]);
  for (const leg of r.legs) {
    const start = log.findIndex((c, i) => c.op === "moveTo" && c.args[0] === prev[0] && c.args[1] === prev[1]
      && log[i + 1] && log[i + 1].op === "lineTo");
    assert.ok(start >= 0, `round ${leg.round} starts where the last ended`);
    const drawn = [];
    for (let i = start + 1; log[i].op === "lineTo"; i++) drawn.push(log[i].args);
    assert.deepEqual(drawn, leg.squares.map(centre));
    prev = centre(leg.squares[leg.squares.length - 1]);
  }
  const colours = page.context().calls("stroke").map((c) => c.strokeStyle);
  const ACTION = { move: "#1f77b4", "double move": "#ff7f0e", run: "#d62728" };
  assert.deepEqual(r.legs.map((l) => l.action), ["double move", "double move", "move"]);
  for (const leg of r.legs) assert.ok(colours.includes(ACTION[leg.action]), leg.action);
  const numbers = page.context().calls("fillText").map((c) => c.args[0]);
  for (const leg of r.legs) assert.ok(numbers.includes(String(leg.round)));
});

test("creatures: a click places one, a second removes it, the other side's gives way; the button removes all", () => {
  choose();
  page.set('input[name="click"][value="ally"]', true);
  page.click(...page.eidomap.point("5,5"));
  page.click(...page.eidomap.point("6,6"));
  page.set('input[name="click"][value="enemy"]', true);
  page.click(...page.eidomap.point("6,6"));
  page.click(...page.eidomap.point("7,7"));
  assert.deepEqual(plain(page.eidomap.state()).allies, ["5,5"]);
  assert.deepEqual(plain(page.eidomap.state()).enemies, ["6,6", "7,7"]);
  page.click(...page.eidomap.point("7,7"));
  assert.deepEqual(plain(page.eidomap.state()).enemies, ["6,6"]);
  page.set('input[name="click"][value="ally"]', true);
  page.click(...page.eidomap.point("6,6"));
  assert.deepEqual(plain(page.eidomap.state()), { from: null, to: null, allies: ["5,5", "6,6"], enemies: [],
    cursor: "6,6" });
  page.context().log.length = 0;
  page.frames();
  const discs = page.context().calls("fill").filter((c) => c.fillStyle === "#2e7d32");
  assert.equal(discs.length, 2 + DATA.flags.b64.length * 0 + 2);  // two of the file's allies, two placed
  page.$("creatures").click();
  assert.deepEqual(plain(page.eidomap.state()).allies, []);
});

test("a charge's target: set by a click, cleared by a second, said when there is no charge", () => {
  choose({ mode: "charge" });
  page.set('input[name="click"][value="target"]', true);
  page.click(...page.eidomap.point("2,19"));
  page.set('input[name="click"][value="plan"]', true);
  square([4, 12]);
  const want = G.questions.find((q) => q.grid === "d20-battle.txt" && q.o.mode === "charge"
    && q.o.target && name(q.o.target) === "2,19" && name(q.from) === "4,12");
  assert.equal(page.text("text"), want.text);
  square([4, 13]);  // in charge mode a click always moves the start
  assert.equal(plain(page.eidomap.state()).from, "4,13");
  assert.equal(plain(page.eidomap.state()).to, null);
  page.set('input[name="click"][value="target"]', true);
  page.click(...page.eidomap.point("2,19"));
  page.set('input[name="click"][value="plan"]', true);
  square([4, 12]);
  assert.ok(!page.text("text").includes("no charge"));
});

test("the speed is read as the command line reads --speed; a refusal is the alert", () => {
  for (const text of ["\u0663\u0660", "fast", "30.0", "", "1000000000000"]) {
    choose();
    page.set("#speed", text);
    square([13, 0]);
    assert.equal(page.text("status"), `speed must be a whole number (at most 12 digits 0-9), got ${C.repr(text)}`);
    assert.equal(page.$("status").getAttribute("role"), "alert");
  }
  choose({ speed: 25 });
  page.set("#speed", " 25 ");
  square([13, 0]);
  assert.match(page.text("text"), /\(speed 25 ft, move: up to 25 ft\)/);
  page.set("#speed", "7");
  assert.equal(page.text("status"), "speed must be a multiple of 5 ft from 5 to 1000, got 7");
});

test("typing a square sets the start or the goal; a bad one is said", () => {
  choose();
  page.set("#from", "13,0");
  page.set("#to", "0,21");
  assert.ok(page.text("text").startsWith("13,0 -> 0,21"));
  page.set("#to", "99,0");
  assert.equal(page.text("status"), "d20-battle.txt: goal 99,0 is outside the grid (14 rows x 22 columns)");
  page.set("#from", "a,b");
  assert.equal(page.text("status"), "start must be R,C (row,column from 0 at the top left), got 'a,b'");
  page.set("#to", "");
  page.set("#from", "13,0");
  assert.ok(page.text("text").startsWith("35 squares reachable from 13,0"));
});

test("the tooltip says what the square is, who stands there and what this round gives it", () => {
  choose({ speed: 5 });
  square([8, 5]);
  const tip = (sq) => {
    page.pointer("pointermove", ...page.eidomap.point(sq));
    return page.text("tip");
  };
  assert.equal(tip("8,5"), "8,5: difficult + poor visibility\nthis round: 0 ft");
  assert.equal(tip("1,2"), "1,2: impassable");
  assert.equal(tip("3,5"), "3,5: clear\nan ally");
  assert.equal(tip("10,8"), "10,8: difficult + obstacle");
  const r = page.eidomap.reach("8,5", { speed: 5 });
  assert.equal(tip(r.full_round[0]).split("\n").pop(), "only by the full-round 5-ft move");
  page.set('input[name="click"][value="enemy"]', true);
  page.click(...page.eidomap.point("0,0"));
  assert.equal(tip("0,0"), "0,0: clear\nan enemy");
  page.canvas.dispatch("pointerleave");
  assert.equal(page.$("tip").hidden, true);
});

test("the keyboard: focus puts a cursor, arrows move it, Enter clicks", () => {
  choose();
  page.canvas.dispatch("pointerleave");
  page.canvas.focus();
  assert.equal(plain(page.eidomap.state()).cursor, `${Math.floor(DATA.rows / 2)},${Math.floor(DATA.cols / 2)}`);
  page.key("ArrowUp");
  page.key("ArrowLeft");
  page.key("ArrowLeft");
  assert.equal(plain(page.eidomap.state()).cursor, `${Math.floor(DATA.rows / 2) - 1},${Math.floor(DATA.cols / 2) - 2}`);
  page.key("Enter");
  assert.equal(plain(page.eidomap.state()).from, plain(page.eidomap.state()).cursor);
  for (let i = 0; i < 40; i++) page.key("ArrowDown");
  assert.equal(plain(page.eidomap.state()).cursor, `${DATA.rows - 1},${Math.floor(DATA.cols / 2) - 2}`);
  page.key(" ");
  assert.equal(plain(page.eidomap.state()).to, `${DATA.rows - 1},${Math.floor(DATA.cols / 2) - 2}`);
  page.canvas.focus();  // a second focus keeps the cursor
  assert.equal(plain(page.eidomap.state()).cursor, `${DATA.rows - 1},${Math.floor(DATA.cols / 2) - 2}`);
});

test("the squares are drawn a pixel a square in their colours", () => {
  const picture = page.document.made.find((e) => e.localName === "canvas" && e.width === DATA.cols
    && e.height === DATA.rows);
  const data = picture.getContext("2d").calls("putImageData")[0].args[0].data;
  const px = (r, c) => Array.from(data.slice(4 * (r * DATA.cols + c), 4 * (r * DATA.cols + c) + 4));
  assert.deepEqual(px(0, 0), [247, 247, 240, 255]);
  assert.deepEqual(px(1, 2), [40, 40, 40, 255]);  // a wall
  assert.deepEqual(px(1, 13), [201, 166, 107, 255]);  // difficult
  assert.deepEqual(px(5, 13), [150, 150, 150, 255]);  // an obstacle
  assert.deepEqual(px(7, 4), [150, 190, 232, 255]);  // smoke
  // difficult and smoke: a colour of its own, far from the obstacle's grey (their mean, darker, was that grey)
  assert.deepEqual(px(8, 5), [150, 120, 200, 255]);
});
