// Ties (issue 47, item 7): of several routes as good, the page takes the one eidomap's tie rule takes
// (docs/rules.md and docs/d20.md, "Ties") -- tests/data/planner/ties.json, written by tests/planner_golden.py from
// eidomap's answers, which tests/search/test_ties.py checks against every route as good, listed by brute force.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { golden, load, pageData, differs, answer } = require("./harness.cjs");

const G = golden("ties.json");
const scope = load(["common.js", "eido.js", "grid.js"]);
const planners = {};

function plannerOf(name, Planner) {
  return (planners[name] = planners[name] || new Planner(pageData(G.pages[name])));
}

function asked(q) {
  const p = q.grid === undefined ? plannerOf(q.map, scope.EidoPlanner.Planner) : plannerOf(q.grid, scope.GridPlanner.Planner);
  return answer(scope, () => p.route(q.from, q.to, q.o));
}

test("of routes as good, the page answers the one eidomap's tie rule takes, on boards and battle grids", () => {
  const wrong = [];
  for (const q of G.questions) {
    const d = differs(asked(q), q.want);
    if (d) wrong.push(`${JSON.stringify({ map: q.map || q.grid, from: q.from, to: q.to, o: q.o })}: ${d}`);
  }
  assert.ok(G.questions.length >= 100);
  assert.deepEqual(wrong, []);
});

test("across a board of meadows the route keeps to the top row, then goes down the last column", () => {
  // read back from the far corner, each step comes from the Eido listed first: the row above before the left
  const r = asked({ map: "board", from: "r0c0", to: "r4c5", o: {} });
  assert.deepEqual(r.path.map((s) => s.node).slice(0, 6), ["r0c0", "r0c1", "r0c2", "r0c3", "r0c4", "r0c5"]);
});
