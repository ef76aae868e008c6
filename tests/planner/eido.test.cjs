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

// each question asked of the page once: the page's own answer and what --json would print of it (the tests read
// the same questions again -- those through stops, those with words, those under forbid -- and asked again, they
// were half of this file's time)
const answers = new Map();

function ask(q) {
  if (!answers.has(q)) {
    const p = plannerOf(q.map);
    let own = null;  // (null: refused)
    const json = answer(scope, () => (own = q.op === "route" ? p.route(q.from, q.to, q.o) : p.reach(q.from, q.o)));
    answers.set(q, [own, json]);
  }
  return answers.get(q);
}

const asked = (q) => ask(q)[1];

test("the page answers every golden question as eidomap route and reach --json do", () => {
  const wrong = [];
  for (const q of G.questions) {
    const d = differs(asked(q), q.want);
    if (d) wrong.push(`${JSON.stringify({ map: q.map, op: q.op, from: q.from, to: q.to, o: q.o })}: ${d}`);
  }
  assert.deepEqual(wrong, []);
});

test("the page goes through stops and pays a debt carried in as eidomap route --via --debt does (issue 48)", () => {
  const through = G.questions.filter((q) => q.o.via !== undefined || q.o.debt !== undefined);
  assert.ok(through.filter((q) => q.want.reachable && q.want.legs.length > 1).length >= 50);
  for (const q of through) {
    assert.equal(differs(asked(q), q.want), null, JSON.stringify(q.o));
    if (q.text !== undefined) assert.equal(plannerOf(q.map).routeText(asked(q)), q.text, JSON.stringify(q.o));
  }
});

test("the page's itinerary is the words of eidomap route", () => {
  const said = G.questions.filter((q) => q.text !== undefined);
  assert.ok(said.length >= 60);
  for (const q of said) assert.equal(plannerOf(q.map).routeText(ask(q)[0]), q.text, JSON.stringify(q.o));
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

/** A page's data for a road-less path of ``nEidos`` meadow Eidos (then ``nPousas`` more nodes on it), the demo's
 * catalog: the networks the forbid policy's bounds are met on. */
function pathData(nEidos, nPousas = 0) {
  const demo = pageData(G.pages.demo);
  const n = nEidos + nPousas, b64 = (Type, values) => ({
    dtype: { Int32Array: "i32", Uint8Array: "u8" }[Type.name],
    b64: Buffer.from(Type.from(values).buffer).toString("base64"),
  });
  const indptr = [0], dst = [];
  for (let u = 0; u < n; u++) {
    if (u > 0) dst.push(u - 1);
    if (u + 1 < n) dst.push(u + 1);
    indptr.push(dst.length);
  }
  const meadow = demo.terrain_names.indexOf("meadow"), border = demo.kinds.indexOf("border");
  return { ...demo, node_ids: Array.from({ length: n }, (_, k) => `e${k}`), n_eidos: nEidos, n_pousas: nPousas,
    net: { indptr: b64(Int32Array, indptr), dst: b64(Int32Array, dst), kind: b64(Uint8Array, dst.map(() => border)),
      terrain: b64(Int32Array, dst.map(() => meadow)), node_layer: b64(Uint8Array, Array(n).fill(0)),
      node_terrain: b64(Int32Array, Array(n).fill(meadow)) }, names: [] };
}

test("the forbid policy's bounds are eidomap's, with its messages (issue 44, item 9)", () => {
  const limits = G.policy_limits;
  const said = (nodes, what) => limits.find((l) => l.nodes === nodes && (what === undefined || l.what === what)).error;
  // reach with turns under forbid: 10,226 nodes x 10,000 targets, as on the 10,000-Eido board
  const board = new scope.EidoPlanner.Planner(pathData(10000, 226));
  assert.equal(answer(scope, () => board.reach("e0", { turns: 1, partial: "forbid" })).error, said(10226, "targets"));
  assert.equal(answer(scope, () => board.route("e0", "e9", { partial: "forbid" })).best_turns, 2);  // a route: no table
  const wide = new scope.EidoPlanner.Planner(pathData(4472, 1));
  assert.equal(answer(scope, () => wide.reach("e0", { turns: 1, partial: "forbid" })).error, said(4473, "targets"));
  assert.equal(limits.find((l) => l.nodes === 4472).error, null);  // (4,472 x 4,472: within, not asked here)
  const big = new scope.EidoPlanner.Planner(pathData(20001));
  assert.equal(answer(scope, () => big.route("e0", "e5", { partial: "forbid" })).error, said(20001));
  const route = answer(scope, () => big.route("e0", "e5"));
  assert.equal(route.reachable, true);  // under carry no policy: no bound
  const most = new scope.EidoPlanner.Planner(pathData(20000));  // as many nodes as the policy takes, 1,999 budgets
  assert.equal(answer(scope, () => most.route("e0", "e5", { partial: "forbid", dice: "2d1000" })).error,
    said(20000, "budgets"));
});

test("the pairs within a turn's reach the forbid policy holds are bounded as eidomap bounds them", () => {
  const { pairs, error } = G.pairs_bound;  // on the demo, and eidomap's message at a bound one below them
  const bounded = (bound) => {
    const s = load(["common.js", "eido.js"], {}, { "eido.js": [["MAX_POLICY_PAIRS = 10000000",
      `MAX_POLICY_PAIRS = ${bound}`]] });
    const p = new s.EidoPlanner.Planner(pageData(G.pages.demo));
    return answer(s, () => p.reach("bouza-vella", { turns: 1, partial: "forbid" }));
  };
  assert.equal(bounded(pairs - 1).error, error);
  assert.equal(bounded(pairs).error, undefined);
});

test("of parallel steps between two places the cheapest is taken, the last pair of the network too", () => {
  const data = pathData(3);  // e0 - e1 - e2, and from e2 to e1 a second step: off a road, free
  const demo = pageData(G.pages.demo);
  const b64 = (Type, values) => ({ dtype: { Int32Array: "i32", Uint8Array: "u8" }[Type.name],
    b64: Buffer.from(Type.from(values).buffer).toString("base64") });
  const C = scope.EidomapCommon;
  const free = demo.kinds.indexOf("alight"), meadow = demo.terrain_names.indexOf("meadow");
  const dst = Array.from(C.array(data.net.dst)), kind = Array.from(C.array(data.net.kind));
  data.net = { ...data.net, indptr: b64(Int32Array, [0, 1, 3, 5]), dst: b64(Int32Array, [...dst, 1]),
    kind: b64(Uint8Array, [...kind, free]), terrain: b64(Int32Array, [...dst, 1].map(() => meadow)) };
  const p = new scope.EidoPlanner.Planner(data);
  const r = answer(scope, () => p.route("e2", "e1"));
  assert.equal(r.cheapest_cost, 0);
  assert.deepEqual(r.path.map((s) => [s.node, s.kind, s.cost]), [["e2", "start", 0], ["e1", "alight", 0]]);
  assert.equal(answer(scope, () => p.route("e0", "e1")).cheapest_cost, 1);
});

test("a start on the roads, for one who cannot use them, is the reason, not the terrain beyond (as route says)", () => {
  for (const [from, to, why] of [
    ["cd-6", "areeiro", "oestrimio cannot use the roads, where its start cd-6 lies: areeiro lies beyond"],
    ["cd-1", "mar-12", "oestrimio cannot use the roads, where its start cd-1 lies, and cannot enter sea: the terrain"
      + " of mar-12 is sea"],
    ["porto-norte", "porto-sur", "horse cannot enter sea: porto-sur lies beyond"]]) {
    assert.equal(plannerOf("demo").route(from, to, { species: why.split(" ")[0] }).reason, why);
  }
});

test("the rolls are checked whatever the goal, one out of reach too, as route checks them", () => {
  for (const [to, species] of [["porto-sur", "horse"], ["porto-norte", "human"], ["bouza-vella", "human"]]) {
    for (const [rolls, said] of [[[7], "roll 7 is outside the range of 1d6 (1 to 6)"],
      [[0], "roll 0 is outside the range of 1d6 (1 to 6)"]]) {
      const got = asked({ map: "demo", op: "route", from: "porto-norte", to, o: { species, rolls } });
      assert.equal(got.error, said, `${species} to ${to}`);
    }
  }
});

test("the turn's balls found over buckets are the heap's: every forbid answer the same without them (issue 48, item 10)", () => {
  const heap = load(["common.js", "eido.js"], {}, { "eido.js": [["const RING_BUDGET = 255;", "const RING_BUDGET = -1;"]] });
  const forbid = G.questions.filter((q) => q.o.partial === "forbid");
  assert.ok(forbid.length >= 100);
  const slow = {};
  for (const q of forbid) {
    const p = (slow[q.map] = slow[q.map] || new heap.EidoPlanner.Planner(pageData(G.pages[q.map])));
    const got = answer(heap, () => (q.op === "route" ? p.route(q.from, q.to, q.o) : p.reach(q.from, q.o)));
    assert.deepEqual(got, asked(q), JSON.stringify({ map: q.map, from: q.from, to: q.to, o: q.o }));
  }
});
