// The race of several tokens to one goal (issue 48, 9): common.js's race against eidomap.answers.analysis.race --
// tests/data/planner/race.json, written by tests/planner_golden.py: Python's race of random distributions of 2 to 8
// actors, and of the routes of races on the demo map (each token's P(arrived by turn k) asked of the page too).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { golden, load, pageData, differs } = require("./harness.cjs");

const G = golden("race.json");
const scope = load(["common.js", "eido.js"]);
const C = scope.EidomapCommon;

/** Where the page's race differs from Python's (within 1e-12: only the order of a sum differs), or null. */
function wrong(got, want) {
  const near = (a, b) => Math.abs(a - b) <= 1e-12;
  if (got.first.length !== want.first.length || !got.first.every((p, i) => near(p, want.first[i])) || !near(got.tie, want.tie)) {
    return `${JSON.stringify(got)} != ${JSON.stringify({ first: want.first, tie: want.tie })}`;
  }
  return null;
}

test("race gives Python's P(each first) and P(a tie) of 2 to 8 random distributions", () => {
  const off = G.random.map((r) => wrong(C.race(r.dists), r)).filter((d) => d !== null);
  assert.deepEqual(off, []);
  assert.deepEqual(new Set(G.random.map((r) => r.dists.length)), new Set([2, 3, 4, 5, 6, 7, 8]));
  assert.ok(G.random.some((r) => r.tie > 0) && G.random.some((r) => r.dists.some((p) => p.length === 0)));
});

test("the race of tokens on the demo map: the page's routes and race are eidomap's", () => {
  const planner = new scope.EidoPlanner.Planner(pageData(golden("eido.json").pages.demo));
  for (const r of G.routes) {
    const routes = r.movers.map((t) => planner.route(t.from, r.to, t.o));
    assert.equal(differs(routes.map((x) => Array.from(x.p_by_turn)), r.dists), null, JSON.stringify(r.movers));
    assert.equal(wrong(C.raceRoutes(routes), r), null, JSON.stringify(r.movers));
  }
  // (not vacuous: a token that cannot arrive, one already on the goal, and ties)
  assert.ok(G.routes.some((r) => r.dists.some((p) => p.length === 0)) && G.routes.filter((r) => r.tie > 0).length >= 5);
  assert.ok(G.routes.some((r) => r.movers.some((t) => t.from === r.to) && r.first.some((p) => p === 1)));
});

test("race: who arrives alone first wins, the earliest turn shared is a tie, nobody arriving is neither", () => {
  const r = (...dists) => JSON.parse(JSON.stringify(C.race(dists)));
  assert.deepEqual(r([1], [0, 1], [0, 0, 1]), { first: [1, 0, 0], tie: 0 });
  assert.deepEqual(r([0, 1], [0, 1], [1]), { first: [0, 0, 1], tie: 0 });
  assert.deepEqual(r([0, 0, 1], [0, 0, 1], [0, 0, 0, 0, 1]), { first: [0, 0, 0], tie: 1 });  // (C later: still a tie)
  assert.deepEqual(r([], []), { first: [0, 0], tie: 0 });
  const half = r([0.5, 1], [0.2, 0.6, 1]);  // analysis.race's own example: [0.6, 0.3, 0.1]
  assert.ok(Math.abs(half.first[0] - 0.6) < 1e-15 && Math.abs(half.tie - 0.3) < 1e-15 && Math.abs(half.first[1] - 0.1) < 1e-15);
});
