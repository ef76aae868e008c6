// eidomap.PlannerWidget's script (anywidget): the planner page itself inside the widget's element, and a bridge
// between the page's plan and the widget's model.
//
// The page is the one `eidomap planner` writes (the model's `_page`: the same scripts, style and data), in a frame of
// its own: its ids, its style, its keys (Ctrl+Z) and its address stay apart from the notebook's, and two views of one
// widget are two pages.  The bridge goes through the page's plan (view.js PlanLink: the seam its link and its undo
// use): a plan the page publishes sets the traits it changed (model.set, then save_changes), and a trait changed in
// Python restores the plan with it, checked whole first, as a link or an undo does.

/** How a trait is written in a plan's field (``plan``) and read back from it (``trait``). */
const PLACE = { plan: (v) => v ?? "", trait: (t) => t || null };
const NAMES = { plan: (v) => [...v], trait: (t) => [...t] };
const TEXT = { plan: (v) => v, trait: (t) => t };
const DICE = { plan: (v) => v, trait: (t) => t.trim() || "1d6" };  // (a field left empty: the page rolls 1d6)
const ROLLS = { plan: (v) => v.join(","), trait: (t) => (t.trim() ? t.split(",").map(Number) : []) };

/** Each trait of the widget: the field of the page's plan (eido_page.js, PLAN) that holds it, and how. */
const TRAITS = {
  start: ["start", PLACE], goal: ["goal", PLACE], stops: ["via", NAMES], species: ["species", TEXT],
  mount: ["mount", PLACE], companions: ["with", NAMES], partial: ["partial", TEXT], dice: ["dice", DICE],
  rolls: ["rolls", ROLLS],
};

/** The frame's height (CSS pixels): the page's board takes 62% of it. */
const HEIGHT = 720;

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Keep the plan of ``page`` (the frame's window, its scripts run) and ``model`` in step; ``listening`` gets each
 * [event, handler] put on the model (taken off when the view goes).
 */
function bridge(model, page, listening) {
  const link = page.eidomap.link, C = page.EidomapCommon;
  // (a trait whose field the page's plan does not have is Python's alone)
  const traits = Object.entries(TRAITS).filter(([, [field]]) => Object.hasOwn(link.fields, field));
  const say = (message) => page.PlannerView.status(page.document.getElementById("status"), message, true);

  /** The traits' values a plan of the page says. */
  const traitsOf = (plan) => traits.map(([, [field, how]]) => how.trait(plan[field]));

  /** Restore the model's plan on the page (``first``: as the plan the page opened with). */
  function receive(first = false) {
    const plan = page.eidomap.plan();
    const wanted = traits.map(([name]) => model.get(name));
    if (!first && same(traitsOf(plan), wanted)) return;  // (the page's own change come back, or one it has already)
    traits.forEach(([, [field, how]], k) => { plan[field] = how.plan(wanted[k]); });
    try {
      if (first) link.reopen(plan);
      else link.restore(plan);
    } catch (e) {
      if (!(e instanceof C.RequestError)) throw e;
      say(e.message);
    }
  }

  /** The traits a plan the page published changed, sent (a plan the page refuses: its status says why). */
  function send(plan) {
    try {
      link.check(plan);
    } catch (e) {
      if (!(e instanceof C.RequestError)) throw e;
      return;
    }
    const values = traitsOf(plan);
    let changed = false;
    traits.forEach(([name], k) => {
      if (!same(values[k], model.get(name))) {
        model.set(name, values[k]);
        changed = true;
      }
    });
    if (changed) model.save_changes();
  }

  receive(true);
  link.follow(send);
  let queued = false;  // several traits changed at once: the plan restored once
  const changed = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      receive();
    });
  };
  for (const [name] of traits) {
    model.on(`change:${name}`, changed);
    listening.push([`change:${name}`, changed]);
  }
}

function render({ model, el }) {
  const frame = document.createElement("iframe");
  frame.title = "eidomap planner";
  frame.style.cssText = `display: block; width: 100%; height: ${HEIGHT}px; border: none;`;
  const listening = [];
  frame.addEventListener("load", () => bridge(model, frame.contentWindow, listening), { once: true });
  frame.srcdoc = model.get("_page");
  el.append(frame);
  return () => {
    for (const [event, fn] of listening) model.off(event, fn);
    frame.remove();
  };
}

export default { render };
