// The Eido rules in the page (eido.js) against eidomap's answers: tests/data/planner/eido.json, written by
// tests/planner_golden.py from `eidomap route --json` / `reach --json` and the words `eidomap route` prints.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { golden, load, pageData, differs, answer } = require("./harness.cjs");

const G = golden("eido.json");
const scope = load(["common.js", "eido.js"]);
const planners = {};
const plannerOf = (map) => (planners[map] = planners[map] || new scope.EidoPlanner.Planner(pageData(G.pages[map])));

function asked(q) {
  const p = plannerOf(q.map);
  return answer(scope, () => (q.op === "route" ? p.route(q.from, q.to, q.o) : p.reach(q.from, q.o)));
}

test("the page answers every golden question as eidomap route and reach --json do", () => {
  const wrong = [];
  for (const q of G.questions) {
    const d = differs(asked(q), q.want);
    if (d) wrong.push(`${JSON.stringify({ map: q.map, op: q.op, from: q.from, to: q.to, o: q.o })}: ${d}`);
  }
  assert.deepEqual(wrong, []);
});

test("the page's itinerary is the words of eidomap route", () => {
  const said = G.questions.filter((q) => q.text !== undefined);
  assert.ok(said.length >= 60);
  for (const q of said) {
    const p = plannerOf(q.map);
    assert.equal(p.routeText(p.route(q.from, q.to, q.o)), q.text, JSON.stringify(q.o));
  }
});

test("dice that never give a point are refused as the command line refuses them (issue 44, item 8)", () => {
  for (const dice of ["1d1-1", "1d2-2"]) {
    for (const q of [{ op: "route", to: "porto-norte", o: { dice } }, { op: "reach", o: { dice, roll: 0 } },
      { op: "reach", o: { dice, turns: 2 } }, { op: "reach", o: { dice, turns: 2, partial: "forbid" } },
      { op: "route", to: "porto-norte", o: { dice, rolls: [0] } }]) {
      const got = asked({ ...q, map: "demo", from: "bouza-vella" });
      assert.equal(got.error, `human cannot move: with dice ${dice} and VMv 0 no turn gives a PtMv (the highest roll`
        + " plus VMv is 0)");
    }
  }
});
