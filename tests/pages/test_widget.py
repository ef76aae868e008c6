"""``eidomap.PlannerWidget``: the planner page in a notebook, its plan in traits kept in step both ways (issue 48,
item 11), tested without JupyterLab.

Its model in Python: the traits set (in Python, or as the front end sends them: ``set_state``) give the route
``eidomap.route`` answers, and a plan the map cannot take is refused.  Its script (``widget.mjs``) in headless
Chromium, loaded as anywidget loads it (a module from a Blob) and mounted into a div with a minimal model written
in JavaScript (``get``/``set``/``on``/``off``/``save_changes``): a click on the board sets the model's traits, a
trait set on the model redraws the board.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import traitlets
from conftest import LOCAL, PAGE_GUARD, borrowed_page
from json_answers import differs

import eidomap
from eidomap.answers.routing import route
from eidomap.pages import widget as module
from eidomap.pages.widget import PlannerWidget
from eidomap.rules.eido import actor

OUTPUT = Path(__file__).resolve().parents[1] / "output"


# -- the model in Python ---------------------------------------------------------------------------------------
def test_the_route_is_what_eidomap_route_answers_for_the_traits(demo):
    w = PlannerWidget(demo, start="bouza-vella", rolls=[3, 5, 2, 6])
    seen = []
    w.observe(lambda change: seen.append(change["new"]), "route")
    assert w.route is None and w.species == "human"  # no goal yet
    w.goal = "porto-norte"
    assert w.route == route(demo, "bouza-vella", "porto-norte", "human", rolls=[3, 5, 2, 6]) and seen == [w.route]
    cat = demo.catalog
    for trait, value, want in [
        ("mount", "horse", route(demo, "bouza-vella", "porto-norte", actor(cat, "human", mount="horse"),
                                 rolls=[3, 5, 2, 6])),
        ("companions", ["cow"], route(demo, "bouza-vella", "porto-norte",
                                      actor(cat, "human", mount="horse", party=["cow"]), rolls=[3, 5, 2, 6])),
        ("rolls", [], route(demo, "bouza-vella", "porto-norte", actor(cat, "human", mount="horse", party=["cow"]))),
        ("dice", "2d6", route(demo, "bouza-vella", "porto-norte",
                              actor(cat, "human", mount="horse", party=["cow"], dice="2d6"))),
        ("partial", "forbid", route(demo, "bouza-vella", "porto-norte",
                                    actor(cat, "human", mount="horse", party=["cow"], dice="2d6"), partial="forbid")),
        ("stops", ["monte-louro"], route(demo, "bouza-vella", "porto-norte",
                                         actor(cat, "human", mount="horse", party=["cow"], dice="2d6"),
                                         via=["monte-louro"], partial="forbid")),
    ]:
        setattr(w, trait, value)
        assert w.route == want, trait
    w.species, w.mount, w.companions = "horse", None, []
    assert w.route == route(demo, "bouza-vella", "porto-norte", actor(cat, "horse", dice="2d6"), via=["monte-louro"],
                            partial="forbid")
    w.goal = None
    assert w.route is None and seen[-1] is None


@pytest.mark.parametrize(("trait", "value", "said"), [
    ("goal", "nowhere", r"^goal: .*demo.geojson: no Eido or Pousa with id 'nowhere'$"),
    ("stops", ["monte-louro", "atlantis"], r"^stops: .*no Eido or Pousa with id 'atlantis'$"),
    ("species", "dragon", r"^species: unknown species 'dragon' \(known: .*human"),
    ("mount", "dragon", r"^mount: unknown species 'dragon'"),
    ("companions", ["dragon"], r"^companions: unknown species 'dragon'"),
    ("rolls", [3, 9], r"^rolls: roll 9 is outside the range of 1d6 \(1 to 6\)$"),
    ("dice", "2x", r"^dice '2x' is not of the form NdM\+K"),
    ("dice", "1d4", r"^dice: roll 5 is outside the range of 1d4"),  # (the rolls already set)
    ("partial", "sideways", r"'partial' trait .* expected any of \['carry', 'forbid'\]"),
    ("goal", 5, r"'goal' trait .* expected a unicode string"),
])
def test_a_plan_the_map_cannot_take_is_refused_naming_the_trait_and_nothing_changes(demo, trait, value, said):
    w = PlannerWidget(demo, start="bouza-vella", goal="porto-norte", rolls=[3, 5])
    before, answer = w.get_state(), w.route
    with pytest.raises(traitlets.TraitError, match=said):
        setattr(w, trait, value)
    assert w.get_state() == before and w.route is answer


def test_the_front_ends_change_of_several_traits_is_one_plan_and_one_route(demo, monkeypatch):
    """What the page sends (``set_state``, as ipywidgets' comm calls it) is checked whole: dice of 1d4 with rolls of
    5 and 6 would be refused one at a time, not together; the route is asked once."""
    asked = []
    monkeypatch.setattr(module, "route", lambda *a, **k: asked.append(a) or route(*a, **k))
    w = PlannerWidget(demo, start="bouza-vella", goal="porto-norte", rolls=[5, 6])
    asked.clear()
    w.set_state({"dice": "1d4", "rolls": [3, 4], "goal": "chousa"})
    assert len(asked) == 1 and w.route == route(demo, "bouza-vella", "chousa", actor(demo.catalog, "human", dice="1d4"),
                                                rolls=[3, 4])
    with pytest.raises(traitlets.TraitError, match="roll 4 is outside the range of 1d3"):
        w.set_state({"dice": "1d3", "goal": "porto-norte"})
    assert (w.dice, w.goal) == ("1d4", "chousa")


def test_the_map_facade_and_the_root_give_the_widget(demo):
    w = demo.planner(widget=True, species="cow", title="At the table")
    assert eidomap.PlannerWidget is PlannerWidget and isinstance(w, PlannerWidget)
    assert w.map is demo and w.species == "cow"
    assert '"default_species":"cow"' in w._page and "<title>At the table</title>" in w._page
    assert isinstance(demo.planner(), eidomap.pages.planner.PlannerPage)
    with pytest.raises(eidomap.RequestError, match="d20 rules"):
        eidomap.PlannerWidget(eidomap.load(eidomap.bundled_map_path("d20-overland.geojson")))


# -- the script in Chromium, against a minimal model -----------------------------------------------------------
#: The notebook's side: a model as anywidget hands one to ``render`` (Backbone's: ``set`` tells this view's own
#: listeners too), the widget's module imported from a Blob as anywidget imports it, and mounted into a div.
HARNESS = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>widget</title></head><body>
<p>a notebook's cell</p><div id="cell"></div>
<script type="application/json" id="state">STATE</script>
<script type="application/json" id="esm">ESM</script>
<script type="module">
class Model {
  constructor(state) { this.state = state; this.handlers = {}; this.unsaved = {}; this.saved = []; }
  get(name) { return this.state[name]; }
  set(name, value) { this.state[name] = value; this.unsaved[name] = value; this.emit(`change:${name}`); }
  save_changes() { this.saved.push(this.unsaved); this.unsaved = {}; }
  on(event, fn) { (this.handlers[event] = this.handlers[event] || []).push(fn); }
  off(event, fn) { this.handlers[event] = (this.handlers[event] || []).filter((f) => f !== fn); }
  emit(event) { for (const fn of this.handlers[event] || []) fn(this); }
  /** What the kernel sends: traits set in Python. */
  fromPython(changes) {
    Object.assign(this.state, changes);
    for (const name of Object.keys(changes)) this.emit(`change:${name}`);
  }
  listening() { return Object.values(this.handlers).reduce((n, fns) => n + fns.length, 0); }
}
const read = (id) => JSON.parse(document.getElementById(id).textContent);
const url = URL.createObjectURL(new Blob([read("esm")], { type: "text/javascript" }));
const widget = (await import(url)).default;
window.model = new Model(read("state"));
window.cleanup = widget.render({ model: window.model, el: document.getElementById("cell") });
</script>
</body></html>
"""


def _script_json(value) -> str:
    return json.dumps(value).replace("<", "\\u003c")  # (inside a <script> element: nothing ends it)


def test_the_widget_script_runs_the_page_and_keeps_its_plan_in_step_with_the_model(browser, demo, tmp_path):
    w = PlannerWidget(demo, start="bouza-vella", goal="porto-norte", species="horse")
    synced = {name: value for name, value in w.get_state().items() if isinstance(value, str | list | None)}
    harness = tmp_path / "notebook.html"
    harness.write_text(HARNESS.replace("STATE", _script_json(synced)).replace("ESM", _script_json(w._esm)),
                       encoding="utf-8")
    errors: list[str] = []

    def error(e) -> None:
        errors.append(str(e))

    with borrowed_page(browser, 1100, 900) as (page, asked):  # (a context of the planner's tests, offline)
        page.on("pageerror", error)
        page.goto(harness.as_uri())
        page.wait_for_function("() => document.querySelector('iframe')?.contentWindow?.eidomap?.link",
                               timeout=PAGE_GUARD)
        frame = page.frame_locator("iframe")
        board = page.frames[1]
        state = "() => eidomap.state()"
        # mounted: the board shows the model's plan, and nothing went back (the page agreed)
        assert board.evaluate(state) == {"start": "bouza-vella", "goal": "porto-norte", "hover": None}
        assert frame.locator("#species").input_value() == "horse"
        assert page.evaluate("() => model.saved") == []
        assert board.evaluate("() => [eidomap.link.past.length, eidomap.link.future.length]") == [0, 0]

        # a click on the board: the goal, and only the goal, goes to the model
        box = page.locator("iframe").bounding_box()
        x, y = board.evaluate("(id) => eidomap.point(id)", "chousa")
        page.mouse.click(box["x"] + x, box["y"] + y)
        page.wait_for_function("() => model.saved.length === 1")
        assert page.evaluate("() => model.saved") == [{"goal": "chousa"}]
        assert page.evaluate("() => model.get('goal')") == "chousa"

        # traits set in Python: the kernel's message; the board redraws the route Python answers, nothing echoed
        drawn = board.evaluate("() => document.getElementById('map').toDataURL()")
        w.set_state({"goal": "chousa"})
        with w.hold_trait_notifications():
            w.goal, w.species, w.rolls = "aldea-do-cabo", "human", [3, 5, 2, 6, 4, 4, 1, 6]
        page.evaluate("(changes) => model.fromPython(changes)", {k: w.get_state()[k] for k in ("goal", "species",
                                                                                                "rolls")})
        board.wait_for_function("() => eidomap.state().goal === 'aldea-do-cabo'")
        assert frame.locator("#to").input_value() == "aldea-do-cabo"
        assert frame.locator("#rolls").input_value() == "3,5,2,6,4,4,1,6"
        assert frame.locator("#status").text_content() == f"Arrives in turn {w.route.arrival_turn}."
        page_route = board.evaluate("""() => eidomap.route("bouza-vella", "aldea-do-cabo",
            { species: "human", rolls: [3, 5, 2, 6, 4, 4, 1, 6] })""")
        assert differs(page_route, json.loads(json.dumps(w.route.as_dict()))) is None
        board.wait_for_function("(before) => document.getElementById('map').toDataURL() !== before", arg=drawn)
        assert page.evaluate("() => model.saved.length") == 1
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "planner-widget.png"), full_page=True)

        # the page's undo is a change of the plan like a click: back to the goal clicked, and to the model
        frame.locator("#undo").click()
        page.wait_for_function("() => model.saved.length === 2")
        assert page.evaluate("() => model.saved[1]") == {"goal": "chousa", "species": "horse", "rolls": []}

        # the page's address is its own: the notebook's is untouched
        assert page.evaluate("() => location.hash") == ""

        # the view goes: its listeners leave the model
        assert page.evaluate("() => model.listening()") > 0
        page.evaluate("() => cleanup()")
        assert page.evaluate("() => [model.listening(), document.querySelectorAll('iframe').length]") == [0, 0]
        page.remove_listener("pageerror", error)
    assert errors == [] and [u for u in asked if not u.startswith(LOCAL)] == []
