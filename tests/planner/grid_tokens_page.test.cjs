// Several tokens on the battle page (grid_page.js, issue 48, 9), in Node: movers added and placed by a click, typed,
// changed and removed; the race is exact (no dice): the fewest rounds of `d20 route` arrive first, as the page's race
// of certain arrivals gives it; the plan holds the movers and a plan whose movers the grid cannot take is refused.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { golden, openPage, refusal } = require("./harness.cjs");

const G = golden("grid.json");
const page = openPage(G.pages["d20-battle.txt"], "grid");
const { EidomapCommon: C } = page.scope;
const square = (sq) => page.click(...page.eidomap.point(sq));
const plain = (x) => JSON.parse(JSON.stringify(x));
const named = (tag, label) => page.document.querySelectorAll(tag).find((e) => (e.getAttribute("aria-label") || e.title) === label);
function edit(el, value) {
  if (el.type === "checkbox") el.checked = value;
  else el.value = value;
  el.dispatch("change");
}
function addMover(sq) {
  page.$("add-mover").click();
  square(sq);
}

test("movers race token 1 to the goal: each token's rounds of d20 route, the fewest first, equal fewest a tie", () => {
  page.$("clear").click();
  square("13,0");
  square("0,21");
  addMover("13,1");  // (token 1's speed and movement: a tie with it)
  addMover("6,5");
  edit(named("input", "token 3's speed (ft)"), "60");
  edit(named("select", "token 3's movement"), "double");
  addMover("3,4");  // (inside the chapel's walls, its door south)
  const got = plain(page.eidomap.race());
  const routes = got.tokens.map((t) => page.eidomap.route(t.from, "0,21", t.o));
  assert.deepEqual(got.tokens.map((t) => [t.rounds, t.feet]), routes.map((r) => [r.rounds, r.feet]));
  assert.deepEqual(got.tokens.map((t) => t.p_by_turn), routes.map((r) => Array.from({ length: r.rounds }, (_, k) => +(k === r.rounds - 1))));
  const fewest = Math.min(...routes.map((r) => r.rounds)), at = routes.filter((r) => r.rounds === fewest).length;
  assert.deepEqual([got.tokens.map((t) => t.first), got.tie],
    [routes.map((r) => +(at === 1 && r.rounds === fewest)), +(at > 1)]);
  const want = plain(C.race(got.tokens.map((t) => t.p_by_turn)));
  assert.deepEqual([got.tokens.map((t) => t.first), got.tie], [want.first, want.tie]);
  assert.deepEqual(got.tokens[2].o, { speed: 60, mode: "double", heavy_armor: false, flying: false });
  assert.equal(new Set(got.tokens.map((t) => t.color)).size, 4);
  assert.match(page.text("race"), /The race to 0,21: no dice, the fewest rounds arrive first/);
  const drawn = page.context().calls("fillText").map((c) => c.args[0]);
  for (const n of ["1", "2", "3", "4"]) assert.ok(drawn.includes(n), n);
  assert.deepEqual(plain(page.eidomap.plan().movers), ["at=13%2C1&speed=30", "at=6%2C5&speed=60&mode=double", "at=3%2C4&speed=30"]);
});

test("the fewest rounds alone arrive first; a mover that cannot reach says why; picked again, changed, removed", () => {
  edit(named("input", "token 3's speed (ft)"), "120");
  const got = plain(page.eidomap.race());
  assert.deepEqual([got.tokens.map((t) => t.first), got.tie], [[0, 0, 1, 0], 0]);
  edit(named("input", "token 3's speed (ft)"), "7");
  assert.equal(page.text("status"), "token 3's speed must be a multiple of 5 ft from 5 to 1000000, got 7".replace("1000000", page.text("status").match(/to (\d+)/)[1]));
  assert.equal(page.eidomap.race().tokens[2].o.speed, 120);
  named("button", "pick token 4's start on the grid").click();
  assert.equal(page.eidomap.preview(), null);
  square("1,2");  // a wall: no way from there
  assert.deepEqual(page.eidomap.state().to, "0,21");
  assert.match(page.text("race"), /1,230 ft, moved20-battle.txt:6:3: start 1,2 is impassable0.000/);
  assert.equal(page.eidomap.race().tokens[3].first, 0);
  named("button", "pick token 4's start on the grid").click();
  page.key("Escape");  // (picking cancelled: nothing else changes)
  assert.equal(page.eidomap.state().from, "13,0");
  edit(named("input", "token 4's start (R,C, or Pick and click the grid)"), "12,21");
  edit(named("input", "token 4: flying"), true);
  assert.deepEqual(plain(page.eidomap.race().tokens[3].o), { speed: 30, mode: "move", heavy_armor: false, flying: true });
  named("button", "remove token 2").click();
  assert.deepEqual(plain(page.eidomap.plan().movers), ["at=6%2C5&speed=120&mode=double", "at=12%2C21&speed=30&flying=yes"]);
});

test("a plan whose movers the grid cannot take is refused with one line, nothing changed", () => {
  const link = page.eidomap.link, before = plain(page.eidomap.plan());
  const refused = (movers) => refusal(page.scope, () => link.restore({ ...before, movers }));
  assert.equal(refused(["at=99,0"]), "d20-battle.txt: the plan's token 2's start 99,0 is outside the grid (14 rows x 22 columns)");
  assert.equal(refused(["at=1,1", "at=1,1&mode=charge"]), "the plan's token 3's mode must be one of move, double, run, got 'charge'");
  assert.equal(refused(["at=1,1&colour=red"]), "the plan's token 2: no field 'colour' (a mover's fields: at, speed, mode, heavy, flying)");
  assert.equal(refused(["at=1,1&speed=x"]), "the plan's token 2's speed must be a whole number (at most 12 digits 0-9), got 'x'".replace("12", String(C.MAX_DIGITS)));
  assert.equal(refused(Array(8).fill("at=1,1")), "the plan has 8 movers besides token 1, at most 7");
  assert.deepEqual(plain(page.eidomap.plan()), before);
  assert.equal(refused(Array(7).fill("at=0,0")), null);
  assert.equal(page.eidomap.race().tokens.length, 8);
  assert.equal(page.$("add-mover").disabled, true);
});
