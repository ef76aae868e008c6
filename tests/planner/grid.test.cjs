// The battle grid in the page (grid.js) against eidomap's answers: tests/data/planner/grid.json, written by
// tests/planner_golden.py from `eidomap d20 reach --json` / `d20 route --json` and the words they print.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { golden, load, pageData, differs, answer } = require("./harness.cjs");

const G = golden("grid.json");
const scope = load(["common.js", "grid.js"]);
const planners = {};
const plannerOf = (grid) => (planners[grid] = planners[grid] || new scope.GridPlanner.Planner(pageData(G.pages[grid])));

// each question is answered once and its words written once, whichever tests read them (a route through stops in
// run mode is the slowest question: asked three times, it was most of the Node tests' time)
const answers = new Map(), texts = new Map();
function asked(q) {
  if (!answers.has(q)) {
    const p = plannerOf(q.grid);
    answers.set(q, answer(scope, () => (q.op === "route" ? p.route(q.from, q.to, q.o) : p.reach(q.from, q.o))));
  }
  return answers.get(q);
}
function said(q) {
  if (!texts.has(q)) {
    const p = plannerOf(q.grid);
    texts.set(q, q.op === "route" ? p.routeText(q.from, q.to, q.o) : p.reachText(q.from, q.o));
  }
  return texts.get(q);
}

test("the page answers every golden question as eidomap d20 reach and route --json do", () => {
  const wrong = [];
  for (const q of G.questions) {
    const d = differs(asked(q), q.want);
    if (d) wrong.push(`${JSON.stringify({ grid: q.grid, op: q.op, from: q.from, to: q.to, o: q.o })}: ${d}`);
  }
  assert.deepEqual(wrong, []);
});

test("the page goes through stops and from a round under way as eidomap d20 route --via --used does (issue 48)", () => {
  const through = G.questions.filter((q) => q.op === "route" && (q.o.via !== undefined || q.o.used !== undefined));
  assert.ok(through.filter((q) => q.want.rounds && q.want.legs.length > 1).length >= 40);
  assert.ok(through.filter((q) => q.want.rounds && q.o.used > 0).length >= 20);
  for (const q of through) {
    assert.equal(differs(asked(q), q.want), null, JSON.stringify(q));
    if (q.text !== undefined) assert.equal(said(q), q.text, JSON.stringify(q));
  }
});

test("this round's reach from a round under way is eidomap d20 reach --used's (issue 48)", () => {
  const underWay = G.questions.filter((q) => q.op === "reach" && q.o.used !== undefined);
  assert.ok(underWay.filter((q) => q.want.reachable && q.o.used > 0).length >= 60);
  assert.ok(underWay.filter((q) => q.want.reachable && q.o.odd_diagonals).length >= 15);
  assert.ok(underWay.filter((q) => q.want.error).length >= 4);
  for (const q of underWay) {
    assert.equal(differs(asked(q), q.want), null, JSON.stringify(q));
    if (q.text !== undefined) assert.equal(plannerOf(q.grid).reachText(q.from, q.o), q.text, JSON.stringify(q));
  }
});

test("the page's words are those of eidomap d20 reach and d20 route", () => {
  const spoken = G.questions.filter((q) => q.text !== undefined);
  assert.ok(spoken.length >= 40);
  for (const q of spoken) assert.equal(said(q), q.text, JSON.stringify(q));
});

test("a creature's square that is not R,C is named by its side", () => {
  const p = plannerOf("line.txt");
  const said = (o) => answer(scope, () => p.reach("0,0", o)).error;
  assert.equal(said({ allies: "1,1;x" }), "ally must be R,C (row,column from 0 at the top left), got 'x'");
  assert.equal(said({ enemies: ["1,1", "2"] }), "blocked square must be R,C (row,column from 0 at the top left), got '2'");
  assert.equal(said({ blocked: "1;" }), "blocked square must be R,C (row,column from 0 at the top left), got '1'");
  assert.deepEqual(Object.keys(answer(scope, () => p.reach("0,0", { allies: " ; 1,1 ;", speed: 5 })).reachable),
    ["0,0", "0,1", "1,0"]);
});
