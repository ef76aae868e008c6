// Loads the planner pages' scripts (eidomap/data/planner/*.js) in Node, as the pages embed them: each in a
// fresh global scope (a vm context) holding what a browser gives a script -- a minimal document built from the
// page's HTML, a canvas that records what is drawn -- and nothing else.  The scripts are plain browser
// scripts, read from the package unchanged.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const ROOT = path.resolve(__dirname, "..", "..");
const SCRIPTS = path.join(ROOT, "eidomap", "data", "planner");
const GOLDEN = path.join(ROOT, "tests", "data", "planner");

/** A golden file of tests/data/planner (written by tests/planner_golden.py from eidomap's answers). */
function golden(name) {
  return JSON.parse(fs.readFileSync(path.join(GOLDEN, name), "utf8"));
}

/** The scripts ``names`` run in one new global scope with ``globals``; the scope is returned.  ``patch``: texts of
 * a script replaced before it runs, {name: [[text, replacement]]} (a bound lowered, to meet it on a small map). */
function load(names, globals = {}, patch = {}) {
  const scope = vm.createContext({ atob, queueMicrotask, ...globals });
  scope.window = scope;
  // A global of a vm context is looked up through the context's interceptor, a call into Node each time: a script
  // that reads Math in its inner loop ran 40 times slower than in a page (a battle-grid run through stops, 2.8 s
  // instead of 64 ms).  Bound as the context's own script-scope constants, the built-ins are found as a page finds
  // them; what the test gives in ``globals`` stays a global the test may change.
  const builtins = Object.getOwnPropertyNames(vm.runInContext("globalThis", scope)).filter((name) => {
    const d = Object.getOwnPropertyDescriptor(vm.runInContext("globalThis", scope), name);
    return /^[A-Z][A-Za-z0-9]*$/.test(name) && d.configurable && "value" in d && !(name in globals);
  });
  vm.runInContext(builtins.map((name) => `const ${name} = globalThis.${name};`).join("\n"), scope);
  // a mutation run (StrykerJS) keeps its bookkeeping on the global object and names the mutant to activate in
  // the environment: the scripts' scope shares both
  if (globalThis.__stryker__) Object.assign(scope, { __stryker__: globalThis.__stryker__, process: { env: process.env } });
  for (const name of names) {
    const file = path.join(SCRIPTS, name);
    let source = fs.readFileSync(file, "utf8");
    for (const [text, replacement] of patch[name] || []) {
      if (source.split(text).length !== 2) throw new Error(`${name}: ${text} is not there once to patch`);
      source = source.replace(text, replacement);
    }
    vm.runInContext(source, scope, { filename: file });
  }
  return scope;
}

/** The data a page embeds (its ``eidomap-data`` element), from the page's HTML. */
function pageData(html) {
  const m = /<script type="application\/json" id="eidomap-data">([\s\S]*?)<\/script>/.exec(html);
  return JSON.parse(m[1]);
}

// -- a document: elements parsed from the page's HTML, events, the few selectors the scripts use -------------
const VOID = new Set(["input", "meta", "link", "br", "img", "hr"]);
const RAW = new Set(["script", "style"]);
const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", minus: "\u2212", nbsp: "\u00a0" };
const decode = (text) => text.replace(/&(#?\w+);/g, (all, name) => (name in ENTITIES ? ENTITIES[name] : all));

class Node {
  constructor(document) {
    this.ownerDocument = document;
    this.parentNode = null;
    this.childNodes = [];
  }

  get textContent() {
    return this.childNodes.map((c) => c.textContent).join("");
  }

  set textContent(text) {
    for (const c of this.childNodes) c.parentNode = null;
    this.childNodes = [];
    if (text !== "") this.appendChild(this.ownerDocument.createTextNode(String(text)));
  }

  appendChild(child) {
    if (child.parentNode) child.parentNode.childNodes.splice(child.parentNode.childNodes.indexOf(child), 1);
    child.parentNode = this;
    this.childNodes.push(child);
    return child;
  }

  append(...children) {
    for (const c of children) this.appendChild(typeof c === "string" ? this.ownerDocument.createTextNode(c) : c);
  }

  get children() {
    return this.childNodes.filter((c) => c instanceof Element);
  }
}

class Text extends Node {
  constructor(document, text) {
    super(document);
    this.data = text;
  }

  get textContent() {
    return this.data;
  }

  set textContent(text) {
    this.data = String(text);
  }
}

class Element extends Node {
  constructor(document, tag, attributes = {}) {
    super(document);
    this.tagName = tag.toUpperCase();
    this.localName = tag.toLowerCase();
    this.attributes = new Map(Object.entries(attributes));
    this.listeners = {};
    this.style = { setProperty(name, value) { this[name] = String(value); } };
    this._checked = this.attributes.has("checked");
    this.hidden = this.attributes.has("hidden");
    this.open = this.attributes.has("open");
    this.width = 300;
    this.height = 150;
  }

  get className() {
    return this.getAttribute("class") || "";
  }

  set className(v) {
    this.setAttribute("class", v);
  }

  getAttribute(name) {
    return this.attributes.has(name) ? this.attributes.get(name) : null;
  }

  setAttribute(name, value) {
    this.attributes.set(name, String(value));
  }

  hasAttribute(name) {
    return this.attributes.has(name);
  }

  get options() {
    return this.querySelectorAll("option");
  }

  get value() {
    if (this.localName === "select") {
      const options = this.options;
      const chosen = options.find((o) => o.selected) || options[0];
      return chosen ? chosen.value : "";
    }
    if (this._value !== undefined) return this._value;
    if (this.localName === "option" && !this.hasAttribute("value")) return this.textContent;
    return this.getAttribute("value") || "";
  }

  set value(v) {
    if (this.localName === "select") {
      for (const o of this.options) o.selected = o.value === String(v);
    } else {
      this._value = String(v);
    }
  }

  get checked() {
    return this._checked;
  }

  set checked(on) {
    this._checked = !!on;
    if (on && this.type === "radio") {
      for (const other of this.ownerDocument.querySelectorAll(`input[name="${this.name}"]`)) {
        if (other !== this) other._checked = false;
      }
    }
  }

  addEventListener(type, fn, options = false) {
    const capture = options === true || !!(options && options.capture);  // (a box taking a press before the board)
    (this.listeners[type] = this.listeners[type] || []).push(Object.assign((e) => fn.call(this, e), { capture }));
  }

  /** Dispatch an event of ``type`` as a browser does: down from the document to the target through the capturing
   * listeners, then back up through the others, until one stops it; ``fields`` are the event's own. */
  dispatch(type, fields = {}) {
    const event = { type, target: this, defaultPrevented: false, stopped: false, preventDefault() { this.defaultPrevented = true; },
      stopPropagation() { this.stopped = true; }, ...fields };
    const path = [];
    for (let node = this; node; node = node.parentNode) path.push(node);
    const phase = (nodes, capture) => {
      for (const node of nodes) {
        if (event.stopped) return;
        for (const fn of node.listeners ? node.listeners[type] || [] : []) if (fn.capture === capture || node === this) fn(event);
      }
    };
    phase([...path].reverse().slice(0, -1), true);
    phase(path, false);
    return event;
  }

  click() {
    if (this.type === "radio" || this.type === "checkbox") {
      this.checked = this.type === "radio" ? true : !this.checked;
      this.dispatch("click");
      this.dispatch("change");
    } else {
      this.dispatch("click");
    }
  }

  focus() {
    this.ownerDocument.activeElement = this;
    this.dispatch("focus");
  }

  setPointerCapture() {}

  get offsetWidth() {
    return 120;
  }

  get offsetHeight() {
    return 40;
  }

  getBoundingClientRect() {
    const { width, height, left = 0, top = 0 } = this.box || { width: 0, height: 0 };
    return { left, top, width, height, right: left + width, bottom: top + height, x: left, y: top };
  }

  getContext() {
    if (!this.context) this.context = new Context(this);
    return this.context;
  }

  querySelectorAll(selector) {
    const out = [];
    this.walk(compiled(selector), (c) => { out.push(c); });
    return out;
  }

  querySelector(selector) {
    return this.walk(compiled(selector), () => true);
  }

  /** The elements under this one in document order that pass ``test`` (``scope``: this), each given to ``found``
   * until it returns true; that element is returned (else null). */
  walk(test, found) {
    const stack = [this.childNodes], at = [0];
    while (stack.length) {
      const nodes = stack[stack.length - 1], i = at[at.length - 1]++;
      if (i >= nodes.length) {
        stack.pop();
        at.pop();
        continue;
      }
      const c = nodes[i];
      if (!(c instanceof Element)) continue;
      if (test(c, this) && found(c)) return c;
      stack.push(c.childNodes);
      at.push(0);
    }
    return null;
  }
}

for (const name of ["id", "name", "type", "title"]) {  // attributes an element reflects as properties
  Object.defineProperty(Element.prototype, name, {
    get() { return this.getAttribute(name) || ""; },
    set(v) { this.setAttribute(name, v); },
  });
}

/** ``test(el, scope)``: does ``el`` match ``selector`` -- compounds of tag, #id, .class, [attr="value"], :checked,
 * by descendant -- each selector read once (the scripts ask the same few thousands of times). */
const selectors = new Map();
function compiled(selector) {
  let test = selectors.get(selector);
  if (test) return test;
  const parts = selector.trim().split(/\s+/).map((part) => {
    const m = /^([a-z0-9]*)((?:#[\w-]+|\.[\w-]+|\[[^\]]+\]|:checked)*)$/i.exec(part);
    if (!m) throw new Error(`selector not understood by the test document: ${selector}`);
    const tag = m[1].toLowerCase(), checks = [];
    for (const [, kind, rest] of m[2].matchAll(/([#.[:])([^#.[:]+)/g)) {
      if (kind === "#") checks.push((node) => node.getAttribute("id") === rest);
      if (kind === ".") checks.push((node) => node.className.split(/\s+/).includes(rest));
      if (kind === ":") checks.push((node) => rest === "checked" && node.checked);
      if (kind === "[") {
        const [, name, value] = /^([\w-]+)(?:="([^"]*)")?\]$/.exec(rest);
        checks.push(value === undefined ? (node) => node.hasAttribute(name) : (node) => node.getAttribute(name) === value);
      }
    }
    return (node) => (!tag || node.localName === tag) && checks.every((check) => check(node));
  });
  const last = parts[parts.length - 1];
  test = (el, scope) => {
    if (!last(el)) return false;
    let node = el.parentNode, k = parts.length - 2;
    while (k >= 0 && node && node !== scope.parentNode) {
      if (node instanceof Element && parts[k](node)) k--;
      node = node.parentNode;
    }
    return k < 0;
  };
  selectors.set(selector, test);
  return test;
}

class Document extends Element {
  constructor() {
    super(null, "#document");
    this.ownerDocument = this;
    this.activeElement = null;
    this.made = [];
  }

  /** A new element; those made by the scripts are kept in ``made`` (the canvases they draw off the page). */
  createElement(tag) {
    const el = new Element(this, tag);
    this.made.push(el);
    return el;
  }

  createTextNode(text) {
    return new Text(this, text);
  }

  getElementById(id) {
    return this.querySelector(`#${id}`);
  }

  get body() {
    return this.querySelector("body");
  }
}

/** The document of ``html`` (well-formed: the pages' own HTML). */
function parseHTML(html) {
  const doc = new Document();
  let at = doc, i = 0;
  const tag = /<(\/?)([a-zA-Z][\w-]*)((?:\s+[\w-]+(?:="[^"]*")?)*)\s*(\/?)>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/g;
  for (let m; (m = tag.exec(html));) {
    if (m.index > i) at.appendChild(doc.createTextNode(decode(html.slice(i, m.index))));
    i = tag.lastIndex;
    if (!m[2]) continue;  // a comment, the doctype
    const name = m[2].toLowerCase();
    if (m[1]) {
      at = at.parentNode;
      continue;
    }
    const attributes = {};
    for (const [, key, value] of m[3].matchAll(/([\w-]+)(?:="([^"]*)")?/g)) attributes[key] = decode(value ?? "");
    const el = at.appendChild(new Element(doc, name, attributes));
    if (RAW.has(name)) {
      const end = html.indexOf(`</${name}>`, i);
      if (end > i) el.appendChild(doc.createTextNode(html.slice(i, end)));
      i = end + name.length + 3;
      tag.lastIndex = i;
    } else if (!VOID.has(name) && !m[4]) {
      at = el;
    }
  }
  return doc;
}

// -- a canvas that records what is drawn -------------------------------------------------------------------
const DRAWING = ["beginPath", "moveTo", "lineTo", "arc", "closePath", "fill", "stroke", "fillRect", "strokeRect",
  "fillText", "clearRect", "setTransform", "drawImage", "setLineDash", "putImageData"];

class Context {
  constructor(canvas) {
    this.canvas = canvas;
    this.log = [];
    this.state = {};
    for (const op of DRAWING) this[op] = (...args) => this.log.push({ op, args, ...this.state });
    const dash = this.setLineDash;
    this.setLineDash = (d) => {
      this.state.lineDash = d;
      dash(d);
    };
  }

  createImageData(w, h) {
    return { width: w, height: h, data: new Uint8ClampedArray(4 * w * h) };
  }

  /** The calls of ``op`` since the log was last cleared. */
  calls(op) {
    return this.log.filter((c) => c.op === op);
  }
}
for (const prop of ["fillStyle", "strokeStyle", "lineWidth", "lineCap", "lineJoin", "globalAlpha", "font",
  "textAlign", "textBaseline", "imageSmoothingEnabled"]) {
  Object.defineProperty(Context.prototype, prop, {
    get() { return this.state[prop]; },
    set(v) { this.state[prop] = v; },
  });
}

class Path2D {
  constructor(d = "") {
    this.d = d;
    this.ops = [];
  }

  moveTo(...args) {
    this.ops.push(["M", ...args]);
  }

  lineTo(...args) {
    this.ops.push(["L", ...args]);
  }
}

/**
 * A planner page opened in Node: its HTML (without scripts, from a golden file), the scripts of ``kind``
 * ("eido" or "grid") run over it.  ``frames()`` runs the animation frames asked for; ``pointer(type, x, y)``
 * sends a pointer event to the board; ``resize()`` runs what a resize of the board runs.
 */
function openPage(html, kind, { width = 800, height = 600 } = {}) {
  const document = parseHTML(html);
  const canvas = document.getElementById("map");
  canvas.box = { left: 10, top: 20, width, height };
  const frames = [], resized = [];
  const location = { hash: "", pathname: "/page.html", search: "", get href() { return `file:///page.html${this.hash}`; } };
  const scope = load(["common.js", `${kind}.js`, "view.js", `${kind}_page.js`], {
    document, Path2D, performance: { now: () => 0 }, devicePixelRatio: 1, setTimeout, clearTimeout, URLSearchParams,
    location, history: { replaceState: (state, title, url) => { location.hash = url.startsWith("#") ? url : ""; } },
    addEventListener: () => {}, navigator: {},
    requestAnimationFrame: (fn) => frames.push(fn),
    ResizeObserver: class { constructor(fn) { resized.push(fn); } observe() {} },
  });
  const page = {
    scope, document, canvas, eidomap: scope.eidomap,
    $: (id) => document.getElementById(id),
    text: (id) => document.getElementById(id).textContent,
    context: () => canvas.getContext("2d"),
    frames() {
      while (frames.length) frames.shift()();
    },
    resize() {
      for (const fn of resized) fn();
    },
    pointer(type, x, y, fields = {}) {
      return canvas.dispatch(type, { clientX: x, clientY: y, pointerId: 1, ...fields });
    },
    /** A click (press and release, no move) at page point (x, y). */
    click(x, y) {
      page.pointer("pointerdown", x, y);
      page.pointer("pointerup", x, y);
    },
    key(key, fields = {}) {
      return canvas.dispatch("keydown", { key, ...fields });
    },
    /** Set a control's value (or check a box or radio) and send the change a person's edit sends. */
    set(selector, value) {
      const el = document.querySelector(selector);
      if (el.type === "checkbox" || el.type === "radio") el.checked = value;
      else el.value = value;
      el.dispatch("change");
      return el;
    },
  };
  return page;
}

module.exports = { golden, load, pageData, parseHTML, openPage, Path2D, ROOT };

/** Where ``got`` differs from ``want`` (JSON values, keys in the same order, numbers within 1e-9), or null: the
 * comparison of tests/json_answers.py. */
function differs(got, want, where = "") {
  if (want !== null && typeof want === "object" && !Array.isArray(want)) {
    const keys = got !== null && typeof got === "object" && !Array.isArray(got) ? Object.keys(got) : null;
    if (!keys || keys.join("\u0000") !== Object.keys(want).join("\u0000")) {
      return `${where}: keys ${JSON.stringify(keys || got)} != ${JSON.stringify(Object.keys(want))}`;
    }
    for (const k of keys) {
      const d = differs(got[k], want[k], `${where}.${k}`);
      if (d) return d;
    }
    return null;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) return `${where}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`;
    for (let k = 0; k < want.length; k++) {
      const d = differs(got[k], want[k], `${where}[${k}]`);
      if (d) return d;
    }
    return null;
  }
  const ok = typeof want === "number" ? typeof got === "number" && Math.abs(got - want) <= 1e-9 : got === want;
  return ok ? null : `${where}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`;
}

/** What a page script answers: its JSON, or {error} for a refusal (a RequestError; anything else is thrown). */
function answer(scope, fn) {
  try {
    return JSON.parse(JSON.stringify(fn()));
  } catch (e) {
    if (e instanceof scope.EidomapCommon.RequestError) return { error: e.message };
    throw e;
  }
}

/** The refusal of ``fn()`` by a page script: its RequestError's message, or null when it did what it was asked. */
function refusal(scope, fn) {
  const got = answer(scope, () => {
    fn();
    return {};
  });
  return got.error ?? null;
}

module.exports.differs = differs;
module.exports.answer = answer;
module.exports.refusal = refusal;
