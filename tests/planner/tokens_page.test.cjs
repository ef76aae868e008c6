// Several tokens on the board page (eido_page.js, issue 48, 9), in Node: movers added and placed by a click, by the
// keyboard and by a typed id; the race is the page's race of each token's route; the plan holds the movers and a
// plan whose movers the map cannot take is refused with one line, nothing changed.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { golden, openPage, refusal } = require("./harness.cjs");

const G = golden("eido.json");
const page = openPage(G.pages.demo, "eido");
const { EidomapCommon: C } = page.scope;
const pick = (id) => page.click(...page.eidomap.point(id));
const plain = (x) => JSON.parse(JSON.stringify(x));
/** The control ``tag`` named ``label`` to a screen reader (its aria-label, or its title). */
const named = (tag, label) => page.document.querySelectorAll(tag).find((e) => (e.getAttribute("aria-label") || e.title) === label);
/** Set a control's value as a person's edit does (a change sent). */
function edit(el, value) {
  el.value = value;
  el.dispatch("change");
}

/** Add a mover of ``species`` and place it where a click on ``id`` picks. */
function addMover(species, id) {
  page.set("#mover-species", species);
  page.$("add-mover").click();
  pick(id);
}

test("movers race token 1 to the goal: each token's route under the dice, and the page's race of them", () => {
  page.$("clear").click();
  pick("bouza-vella");
  pick("porto-norte");
  addMover("dog", "castro");
  addMover("boat", "a-foz");
  const got = plain(page.eidomap.race());
  assert.deepEqual(got.tokens.map((t) => [t.from, t.o.species]), [["bouza-vella", "human"], ["castro", "dog"], ["a-foz", "boat"]]);
  const routes = got.tokens.map((t) => page.eidomap.route(t.from, "porto-norte", t.o));
  assert.deepEqual(got.tokens.map((t) => t.p_by_turn), plain(routes.map((r) => r.p_by_turn)));
  const want = plain(C.race(routes.map((r) => r.p_by_turn)));
  assert.deepEqual([got.tokens.map((t) => t.first), got.tie], [want.first, want.tie]);
  assert.equal(got.tokens[2].reachable, false);
  assert.match(page.text("race"), /cannot reach the goal: boat cannot enter/);
  assert.equal(new Set(got.tokens.map((t) => t.color)).size, 3);
  // the board: a disc per token, numbered, in its colour
  const drawn = page.context().calls("fillText").map((c) => c.args[0]);
  for (const n of ["1", "2", "3"]) assert.ok(drawn.includes(n), n);
});

test("a mover's start is typed or picked again, its actor changed, and it is removed", () => {
  const start = named("input", "token 2's start (its id, or Pick and click the board)");
  edit(start, "portela");
  assert.equal(page.eidomap.race().tokens[1].from, "portela");
  edit(start, "nowhere");
  assert.equal(page.text("status"), "demo.geojson: no Eido or Pousa with id 'nowhere'");
  assert.equal(page.eidomap.race().tokens[1].from, "portela");
  named("button", "pick token 2's start on the board").click();
  pick("laxes");  // (the click is the token's: the goal stays)
  assert.deepEqual([page.eidomap.race().tokens[1].from, page.eidomap.state().goal], ["laxes", "porto-norte"]);
  named("button", "pick token 2's start on the board").click();
  assert.equal(page.eidomap.preview(), null);  // (a click now places the token: no route previewed)
  page.key("Escape");  // (picking cancelled: nothing else changes)
  assert.equal(page.eidomap.state().start, "bouza-vella");
  edit(named("select", "token 2's species"), "horse");
  edit(named("input", "token 2's dice"), "2d6");
  assert.deepEqual(plain(page.eidomap.race().tokens[1].o), { species: "horse", dice: "2d6", partial: "carry" });
  assert.deepEqual(plain(page.eidomap.plan().movers), ["at=laxes&species=horse&dice=2d6", "at=a-foz&species=boat"]);
  named("button", "remove token 2").click();
  assert.deepEqual(plain(page.eidomap.plan().movers), ["at=a-foz&species=boat"]);
});

test("a plan whose movers the map cannot take is refused with one line, nothing changed", () => {
  const link = page.eidomap.link, before = plain(page.eidomap.plan());
  const refused = (movers) => refusal(page.scope, () => link.restore({ ...before, movers }));
  assert.equal(refused(["at=nowhere"]), "the plan's token 2's start 'nowhere' is no Eido or Pousa of demo.geojson");
  assert.equal(refused(["at=castro", "at=castro&species=dragon"]), "the plan's token 3's species 'dragon' is not in demo.geojson's catalog");
  assert.equal(refused(["at=castro&colour=red"]), "the plan's token 2: no field 'colour' (a mover's fields: at, species, mount, dice)");
  assert.match(refused(["at=castro&dice=d"]), /^dice 'd' is not of the form NdM\+K/);
  assert.equal(refused(Array(8).fill("at=castro")), "the plan has 8 movers besides token 1, at most 7");
  assert.deepEqual(plain(page.eidomap.plan()), before);
  assert.equal(refused(Array(7).fill("at=castro")), null);
  assert.equal(page.eidomap.race().tokens.length, 8);
  assert.equal(page.$("add-mover").disabled, true);
});
