// The board on a canvas (view.js): fitting, the two ways between screen and world, zoom and pan, the pointer and
// the keyboard turned into board events, painting the base once and the answer over it; the drawing helpers.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { load, parseHTML, Path2D } = require("./harness.cjs");

function board({ flipY = true, box = [0, 0, 100, 50], width = 424, height = 224, dpr = 1 } = {}) {
  const document = parseHTML('<div><canvas id="map"></canvas><div id="zoom"></div></div>');
  const canvas = document.getElementById("map");
  canvas.box = { left: 5, top: 7, width, height };
  const frames = [], resized = [];
  const scope = load(["common.js", "view.js"], {
    document, Path2D, devicePixelRatio: dpr, requestAnimationFrame: (fn) => frames.push(fn),
    ResizeObserver: class { constructor(fn) { resized.push(fn); } observe(el) { this.el = el; } },
  });
  const drawn = { base: 0, over: 0, screen: 0 };
  const view = new scope.PlannerView.MapView(canvas, box, flipY, () => drawn.base++, () => drawn.over++);
  view.drawScreen = () => drawn.screen++;
  const events = [];
  for (const name of ["hover", "leave", "pick", "enter", "escape", "focus", "move"]) {
    view.on(name, (...args) => events.push([name, ...args]));
  }
  const run = () => { while (frames.length) frames.shift()(); };
  return { scope, document, canvas, view, drawn, events, frames, run, resized,
    V: scope.PlannerView, pointer: (type, x, y, id = 1) => canvas.dispatch(type, { clientX: x, clientY: y, pointerId: id, timeStamp: 7 }) };
}

const near = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} != ${b}`);

test("the board is fitted inside 12 px of margin, centred, the same scale on both axes", () => {
  const { view } = board();
  near(view.scale, Math.min((424 - 24) / 100, (224 - 24) / 50), "scale");
  const [x0, y0] = view.toScreen(0, 0), [x1, y1] = view.toScreen(100, 50);
  near(x0, (424 - view.scale * 100) / 2, "left");
  near(424 - x1, x0, "right margin");
  near(y0 - y1, 50 * view.scale, "height, y upwards");
  near(y1, 224 - y0, "centred vertically");
  near(y1, 12, "top margin");
  const grid = board({ flipY: false, box: [0, 0, 10, 40] }).view;
  const [gx, gy] = grid.toScreen(0, 0), [, gy1] = grid.toScreen(10, 40);
  near(gy, 12, "rows grow downwards");
  near(gy1, 224 - 12, "bottom");
  near(gx, (424 - 10 * grid.scale) / 2, "left");
});

test("screen and world are each other's inverse, and a line width is in world units", () => {
  for (const flipY of [true, false]) {
    const { view } = board({ flipY });
    view.zoom(1.7, 33, 44);
    view.pan(-5, 9);
    for (const [x, y] of [[0, 0], [12.5, -3], [100, 50]]) {
      const [px, py] = view.toScreen(x, y);
      const [wx, wy] = view.toWorld(px, py);
      near(wx, x, "x");
      near(wy, y, "y");
    }
    near(view.lineWidth(6), 6 / view.scale, "line width");
  }
});

test("zoom keeps the point under the pointer, pan moves by the pixels given; both draw the base again", () => {
  const b = board();
  const { view } = b;
  const before = view.toWorld(100, 80);
  const scale = view.scale;
  view.zoom(2, 100, 80);
  near(view.scale, 2 * scale, "scale");
  const after = view.toWorld(100, 80);
  near(after[0], before[0], "x");
  near(after[1], before[1], "y");
  const centre = view.toWorld(view.w / 2, view.h / 2);
  view.zoom(0.5);  // about the centre
  near(view.toWorld(view.w / 2, view.h / 2)[0], centre[0], "centre");
  const [sx, sy] = view.toScreen(10, 10);
  view.pan(7, -3);
  const [tx, ty] = view.toScreen(10, 10);
  near(tx - sx, 7, "dx");
  near(ty - sy, -3, "dy");
  for (const move of [() => view.zoom(1.1), () => view.pan(2, 2)]) {
    b.run();
    const drawn = b.drawn.base;
    move();
    b.run();
    assert.equal(b.drawn.base, drawn + 1);
  }
});

test("painting: the base once until it changes, the answer over it every time, at the device's pixels", () => {
  const b = board({ dpr: 2 });
  b.run();
  assert.deepEqual(b.drawn, { base: 1, over: 1, screen: 1 });
  assert.equal(b.canvas.width, 848);
  assert.equal(b.canvas.height, 448);
  b.view.redraw();
  b.view.redraw();  // coalesced: one frame
  assert.equal(b.frames.length, 1);
  b.run();
  assert.deepEqual(b.drawn, { base: 1, over: 2, screen: 2 });
  b.view.pan(1, 1);
  b.run();
  assert.deepEqual(b.drawn, { base: 2, over: 3, screen: 3 });
  b.view.paint(true);
  assert.equal(b.drawn.base, 3);
  const ctx = b.canvas.getContext("2d");
  const transforms = ctx.calls("setTransform").map((c) => c.args);
  const world = transforms.filter((t) => t[0] !== 1 && t[0] !== 2);
  const v = b.view;
  assert.deepEqual(world[world.length - 1], [2 * v.scale, 0, 0, -2 * v.scale, 2 * v.ox, 2 * v.oy]);
  assert.deepEqual(transforms[transforms.length - 1], [2, 0, 0, 2, 0, 0]);  // the screen's drawing: CSS pixels
  const image = ctx.calls("drawImage");
  assert.deepEqual(image[image.length - 1].args.slice(1), [0, 0]);
  b.canvas.box.width = 300;
  b.resize = b.resized[0]();
  b.run();
  assert.equal(b.canvas.width, 600);
  assert.equal(b.drawn.base, 4);
});

test("a click picks, a hover moves, a drag pans and picks nothing; leaving is said unless dragging", () => {
  const b = board();
  b.pointer("pointermove", 50, 60);
  assert.deepEqual(b.events.pop(), ["hover", 45, 53, 7]);  // (7: the event's time, the preview's clock)
  b.pointer("pointerdown", 50, 60);
  b.pointer("pointermove", 52, 62);  // within 4 px: still a click
  assert.deepEqual(b.events.pop(), ["hover", 47, 55, 7]);
  b.pointer("pointerup", 52, 62);
  assert.deepEqual(b.events.pop(), ["pick", 47, 55]);
  const [ox, oy] = [b.view.ox, b.view.oy];
  b.pointer("pointerdown", 50, 60);
  b.pointer("pointermove", 60, 60);
  assert.equal(b.events.length, 0);
  b.run();
  const drawnWhileDragging = b.drawn.over;
  b.pointer("pointermove", 70, 50);
  b.run();
  assert.equal(b.drawn.over, drawnWhileDragging);  // the answer waits for the drag's end
  b.canvas.dispatch("pointerleave");
  assert.equal(b.events.length, 0);
  b.pointer("pointerup", 70, 50);
  assert.equal(b.events.length, 0);
  near(b.view.ox - ox, 20, "panned x");
  near(b.view.oy - oy, -10, "panned y");
  b.pointer("pointerdown", 50, 60, 1);
  b.pointer("pointerup", 50, 60, 2);  // another finger's release
  assert.equal(b.events.length, 0);
  b.canvas.dispatch("pointercancel", { pointerId: 1 });
  assert.equal(b.events.length, 0);
  b.pointer("pointerup", 50, 60, 1);
  assert.equal(b.events.length, 0);
  b.canvas.dispatch("pointerleave");
  assert.deepEqual(b.events.pop(), ["leave"]);
});

test("the wheel zooms about the pointer", () => {
  const b = board();
  const scale = b.view.scale, before = b.view.toWorld(40, 30);
  const e = b.canvas.dispatch("wheel", { clientX: 45, clientY: 37, deltaY: -100 });
  assert.ok(e.defaultPrevented);
  near(b.view.scale, scale * Math.exp(0.15), "scale");
  const after = b.view.toWorld(40, 30);
  near(after[0], before[0], "x");
  near(after[1], before[1], "y");
});

test("the keys: arrows move (with Shift they pan), Enter or space choose, + - zoom, 0 fits, Escape", () => {
  const b = board();
  const v = b.view;
  const key = (k, fields = {}) => b.canvas.dispatch("keydown", { key: k, ...fields });
  assert.ok(key("ArrowLeft").defaultPrevented);
  key("ArrowDown");
  key("ArrowRight");
  key("ArrowUp");
  assert.deepEqual(b.events.splice(0), [["move", -1, 0], ["move", 0, 1], ["move", 1, 0], ["move", 0, -1]]);
  const [ox, oy] = [v.ox, v.oy];
  key("ArrowLeft", { shiftKey: true });
  near(v.ox - ox, v.w / 5, "pan right");
  key("ArrowUp", { shiftKey: true });
  near(v.oy - oy, v.h / 5, "pan down");
  assert.equal(b.events.length, 0);
  assert.ok(key("Enter").defaultPrevented);
  key(" ");
  key("Escape");
  assert.deepEqual(b.events.splice(0), [["enter"], ["enter"], ["escape"]]);
  const scale = v.scale;
  key("+");
  near(v.scale, 1.25 * scale, "+");
  key("=");
  near(v.scale, 1.25 * 1.25 * scale, "=");
  key("-");
  key("_");
  near(v.scale, 1.25 * 1.25 * 0.8 * 0.8 * scale, "-");
  key("0");
  const fitted = board().view;
  near(v.scale, fitted.scale, "fit");
  near(v.ox, fitted.ox, "fit x");
  assert.ok(!key("x").defaultPrevented);
  assert.equal(b.events.length, 0);
  b.canvas.focus();
  assert.deepEqual(b.events.pop(), ["focus"]);
});

test("the zoom buttons: in, out and fit, each named for a screen reader", () => {
  const b = board();
  const holder = b.document.getElementById("zoom");
  b.view.buttons(holder);
  const buttons = holder.children;
  assert.deepEqual(buttons.map((x) => [x.textContent, x.title, x.getAttribute("aria-label"), x.type]),
    [["+", "zoom in", "zoom in", "button"], ["\u2212", "zoom out", "zoom out", "button"],
      ["\u2922", "fit the board", "fit the board", "button"]]);
  const scale = b.view.scale;
  buttons[0].click();
  near(b.view.scale, 1.4 * scale, "in");
  buttons[1].click();
  buttons[1].click();
  near(b.view.scale, scale / 1.4, "out");
  b.run();
  const drawn = b.drawn.base;
  buttons[2].click();
  near(b.view.scale, scale, "fit");
  b.run();
  assert.equal(b.drawn.base, drawn + 1);  // fitted: the base drawn again
});

test("the ramp runs through viridis' stops; turns take tab10's colours, then the ramp", () => {
  const { V } = board();
  assert.equal(V.ramp(0), "rgb(68,1,84)");
  assert.equal(V.ramp(0.25), "rgb(59,82,139)");
  assert.equal(V.ramp(0.5), "rgb(33,145,140)");
  assert.equal(V.ramp(1), "rgb(253,231,37)");
  assert.equal(V.ramp(2), "rgb(253,231,37)");
  assert.equal(V.ramp(-1), "rgb(68,1,84)");
  assert.equal(V.ramp(0.125), "rgb(64,42,112)");  // halfway between the first two stops, rounded
  assert.equal(V.ramp(0.9), "rgb(189,219,61)");
  assert.equal(V.turnColor(1, 3), "#1f77b4");
  assert.equal(V.turnColor(10, 10), "#17becf");
  assert.equal(V.turnColor(2, 10), "#ff7f0e");
  assert.equal(V.turnColor(1, 11), V.ramp(0));
  assert.equal(V.turnColor(11, 11), V.ramp(0.9));
  assert.equal(V.turnColor(6, 11), V.ramp(0.45));
});

test("a disc, its number, a star, an element, the status line and a legend", () => {
  const b = board();
  const { V, document } = b;
  const ctx = b.canvas.getContext("2d");
  ctx.log.length = 0;
  V.disc(ctx, 10, 20, 8, "#123456", "7");
  const ops = ctx.log.map((c) => c.op);
  assert.deepEqual(ops, ["beginPath", "arc", "fill", "stroke", "fillText"]);
  assert.deepEqual(ctx.log[1].args, [10, 20, 8, 0, 2 * Math.PI]);
  assert.equal(ctx.log[2].fillStyle, "#123456");
  assert.equal(ctx.log[3].strokeStyle, "#fff");
  assert.equal(ctx.log[3].lineWidth, 1.5);
  assert.deepEqual(ctx.log[4].args, ["7", 10, 20.5]);
  assert.equal(ctx.log[4].fillStyle, "#fff");
  assert.equal(ctx.log[4].font, "bold 8px sans-serif");
  assert.equal(ctx.log[4].textAlign, "center");
  assert.equal(ctx.log[4].textBaseline, "middle");
  ctx.log.length = 0;
  V.disc(ctx, 0, 0, 6, "#000", "");
  assert.ok(!ctx.log.some((c) => c.op === "fillText"));
  ctx.log.length = 0;
  V.star(ctx, 50, 50, 10);
  const points = ctx.calls("lineTo").map((c) => c.args);
  assert.equal(points.length, 10);
  near(points[0][0], 50, "top x");
  near(points[0][1], 40, "top y");
  near(Math.hypot(points[1][0] - 50, points[1][1] - 50), 4.5, "inner radius");
  assert.equal(ctx.calls("fill")[0].fillStyle, "#ffd400");
  assert.equal(ctx.calls("stroke")[0].strokeStyle, "#000");
  assert.equal(ctx.calls("stroke")[0].lineWidth, 1.2);
  assert.ok(ctx.log.some((c) => c.op === "closePath"));
  const e = V.el("span", { class: "x", title: "t" }, "hi");
  assert.equal(e.localName, "span");
  assert.equal(e.getAttribute("class"), "x");
  assert.equal(e.textContent, "hi");
  assert.equal(V.el("div").textContent, "");
  const status = document.createElement("p");
  V.status(status, "bad", true);
  assert.deepEqual([status.textContent, status.className, status.getAttribute("role")], ["bad", "error", "alert"]);
  V.status(status, "fine");
  assert.deepEqual([status.textContent, status.className, status.getAttribute("role")], ["fine", "", "status"]);
  const legend = document.createElement("div");
  V.legend(legend, "feet", "0", "30");
  assert.deepEqual(legend.children.map((c) => c.textContent), ["feet", "0", "", "30"]);
  assert.equal(legend.children[2].getAttribute("class"), "ramp");
  assert.equal(legend.children[2].style.background,
    `linear-gradient(to right, ${[0, 0.25, 0.5, 0.75, 1].map(V.ramp).join(",")})`);
  V.legend(legend, null);
  assert.equal(legend.children.length, 0);
});

test("a plan link tells its followers each plan published; a plan reopened is checked whole and leaves no undo", async () => {
  const addresses = [];
  const scope = load(["common.js", "view.js"], {
    URLSearchParams, location: { hash: "", pathname: "/board.html", search: "" },
    history: { replaceState: (state, title, url) => addresses.push(url) },
  });
  const applied = [], seen = [];
  const link = new scope.PlannerView.PlanLink({
    kind: "eido", fields: { start: "one", with: "many" },
    check: (plan) => { if (plan.start === "x") throw new scope.EidomapCommon.RequestError("no place x"); },
    apply: (plan) => { applied.push(plan); link.publish(plan); },
  });
  const done = () => new Promise((resolve) => setTimeout(resolve));  // (the task that published is over)
  link.publish({ start: "a", with: [] });
  await done();
  link.follow((plan) => seen.push(plan));
  link.publish({ start: "b", with: ["cow"] });
  assert.deepEqual(seen, [{ start: "b", with: ["cow"] }]);
  await done();
  assert.deepEqual(addresses, ["#start=a", "#start=b&with=cow"]);
  assert.equal(link.past.length, 1);
  assert.throws(() => link.reopen({ start: "x", with: [] }), /no place x/);
  assert.deepEqual([applied.length, link.past.length, seen.length], [0, 1, 1]);  // refused: nothing changed
  link.reopen({ start: "c", with: [] });
  assert.deepEqual(applied, [{ start: "c", with: [] }]);
  assert.deepEqual(seen.at(-1), { start: "c", with: [] });
  assert.deepEqual([link.past.length, link.future.length, link.step(true)], [0, 0, false]);  // nothing to undo
  link.publish({ start: "d", with: [] });
  assert.equal(link.step(true), true);
  // an undo is published, and followed, as any change (its plan read back from the link, in the scripts' realm)
  assert.deepEqual(JSON.parse(JSON.stringify(seen.at(-1))), { start: "c", with: [] });
  // several plans published in one task: each followed and undoable, the address written once, with the last
  await done();
  const [followed, undone, written] = [seen.length, link.past.length, addresses.length];
  link.publish({ start: "e", with: [] });
  link.publish({ start: "f", with: ["cow"] });
  assert.deepEqual([seen.length - followed, link.past.length - undone, addresses.length - written], [2, 2, 0]);
  await done();
  assert.deepEqual(addresses.slice(written), ["#start=f&with=cow"]);
  link.publish({ start: "g", with: [] });
  link.flush();  // (the copy-link button: the address now, in the task that published)
  assert.deepEqual(addresses.slice(written + 1), ["#start=g"]);
  await done();
  assert.equal(addresses.length, written + 2);
});

// -- issue 48: fingers, a board resized, the board as SVG ---------------------------------------------------------
test("two fingers pinch about their midpoint and pan; one lifted, the other pans on; nothing is picked", () => {
  const b = board({ dpr: 2 });
  const v = b.view, ctx = b.canvas.getContext("2d");
  const w = [30, 20], [sx, sy] = v.toScreen(...w), scale = v.scale;
  b.pointer("pointerdown", 105, 107, 1);  // (page points: the board is at 5, 7)
  b.pointer("pointerdown", 205, 107, 2);
  b.pointer("pointermove", 305, 107, 2);  // twice as far apart, the midpoint 50 px right
  assert.equal(v.scale, scale);  // the view moves when the gesture ends ...
  b.run();
  ctx.log.length = 0;
  v.paint();
  const moved = ctx.calls("setTransform").map((c) => c.args);
  assert.deepEqual(moved[moved.length - 1], [2, 0, 0, 2, -200, -200]);  // ... the base drawn moved and scaled meanwhile
  assert.equal(ctx.calls("drawImage").length, 1);
  const over = b.drawn.over;
  b.pointer("pointerup", 105, 107, 1);
  b.pointer("pointermove", 315, 117, 2);  // the finger left pans on
  b.pointer("pointerup", 315, 117, 2);
  assert.equal(b.drawn.over, over);
  assert.deepEqual(b.events.filter((e) => e[0] === "pick"), []);
  near(v.scale, 2 * scale, "zoomed twice");
  const [tx, ty] = v.toScreen(...w);
  near(tx, 2 * sx - 100 + 10, "x: about the midpoint, then panned");
  near(ty, 2 * sy - 100 + 10, "y");
  b.pointer("pointerdown", 50, 60, 3);
  b.pointer("pointerdown", 60, 60, 4);
  b.pointer("pointerdown", 70, 60, 5);  // a third finger changes nothing
  b.pointer("pointerup", 70, 60, 5);
  b.pointer("pointerup", 60, 60, 4);
  b.pointer("pointerup", 50, 60, 3);
  assert.deepEqual(b.events.filter((e) => e[0] === "pick"), []);  // two fingers down: never a click
  near(v.scale, 2 * scale, "a still pinch moves nothing");
});

test("a board resized is fitted again when it was fitted, else keeps its centre; a hidden board keeps its view", () => {
  const b = board();
  const v = b.view;
  b.canvas.box.width = 300;
  b.resized[0]();
  near(v.scale, Math.min((300 - 24) / 100, (224 - 24) / 50), "fitted again");
  v.zoom(2, 10, 10);
  const centre = v.toWorld(v.w / 2, v.h / 2), scale = v.scale;
  b.canvas.box.width = 500;
  b.resized[0]();
  near(v.scale, scale, "the zoom kept");
  near(v.toWorld(250, v.h / 2)[0], centre[0], "the centre kept");
  b.canvas.box.width = 0;  // (printing: the board hidden)
  b.resized[0]();
  assert.equal(v.w, 500);
});

test("the SVG context answers every drawing call the page scripts make on a context", () => {
  // "Download SVG" draws the board and the answer through the pages' own drawing code: a call the SVG context
  // lacks throws there and the download is lost (strokeText, the halo of the token's debt in play mode, was one)
  const fs = require("node:fs"), path = require("node:path");
  const { V } = board();
  const svg = new V.SvgContext(10, 10);
  const folder = path.join(__dirname, "..", "..", "eidomap", "data", "planner");
  const called = new Set();
  for (const name of ["eido_page.js", "grid_page.js", "view.js"]) {
    for (const m of fs.readFileSync(path.join(folder, name), "utf8").matchAll(/\bctx\.([a-zA-Z]+)\(/g)) called.add(m[1]);
  }
  assert.ok(called.has("strokeText") && called.has("fillText") && called.size >= 10, [...called].join(" "));
  assert.deepEqual([...called].filter((method) => typeof svg[method] !== "function"), []);
  svg.font = "bold 12px sans-serif";
  svg.strokeStyle = "#fff";
  svg.lineWidth = 3;
  svg.strokeText("owes 2 PtMv", 3, 4);
  assert.match(svg.text(), /<text x="3" y="4" style="font: bold 12px sans-serif"[^>]* stroke="#fff"[^>]*>owes 2 PtMv<\/text>/);
});

test("an SVG context writes what is drawn as shapes: paths, arcs, rectangles, text, its transform and style", () => {
  const { V } = board();
  const svg = new V.SvgContext(100, 50, 'a "<map>" & more');
  svg.layer("board");
  svg.setTransform(2, 0, 0, -2, 5, 6);
  svg.fillStyle = "rgba(40, 40, 40, 0.5)";
  svg.fill(V.path("M0 0L1 0L1 1Z"), "evenodd");
  svg.fill(V.path("M2 2L3 2L3 3Z"));
  svg.layer("answer");
  svg.strokeStyle = "#123456";
  svg.lineWidth = 0.25;
  svg.lineCap = "round";
  svg.setLineDash([1, 2]);
  svg.beginPath();
  svg.moveTo(0, 0);
  svg.lineTo(1.23456, 2);
  svg.stroke();
  svg.setLineDash([]);
  svg.setTransform(1, 0, 0, 1, 0, 0);
  svg.beginPath();
  svg.arc(10, 10, 4, 0, 2 * Math.PI);
  svg.fillStyle = "#fff";
  svg.fill();
  svg.font = "bold 8px sans-serif";
  svg.textAlign = "center";
  svg.textBaseline = "middle";
  svg.fillText("<2>", 10, 10.5);
  svg.strokeRect(1, 2, 3, 4);
  const picture = { width: 2, height: 1, vector: (ctx) => { ctx.fillStyle = "#abc"; ctx.fillRect(1, 0, 1, 1); } };
  svg.drawImage(picture, 10, 20, 20, 10);
  assert.equal(svg.fillStyle, "#fff");  // (the image's own style left behind)
  assert.throws(() => svg.fill(new Path2D("M0 0")), /PlannerView.path/);
  assert.throws(() => svg.drawImage({ width: 1, height: 1 }, 0, 0), /shapes/);
  const text = svg.text();
  assert.ok(text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="100"'
    + ' height="50" viewBox="0 0 100 50">\n<title>a &quot;&lt;map&gt;&quot; &amp; more</title>\n'));
  const lines = text.split("\n").slice(3, -2);
  assert.deepEqual(lines, [
    '<g id="board">', '<g transform="matrix(2 0 0 -2 5 6)">',
    '<path d="M0 0L1 0L1 1Z" fill="rgb(40,40,40)" fill-opacity="0.5" fill-rule="evenodd"/>',
    '<path d="M2 2L3 2L3 3Z" fill="rgb(40,40,40)" fill-opacity="0.5"/>', "</g>", "</g>",
    '<g id="answer">', '<g transform="matrix(2 0 0 -2 5 6)">',
    '<path d="M0 0L1.235 2" fill="none" stroke="#123456" stroke-width="0.25" stroke-linecap="round" stroke-dasharray="1 2"/>',
    "</g>", '<g transform="matrix(1 0 0 1 0 0)">',
    '<path d="M14 10A4 4 0 0 1 6 10A4 4 0 0 1 14 10" fill="#fff"/>',
    '<text x="10" y="10.5" style="font: bold 8px sans-serif" text-anchor="middle" dominant-baseline="central" fill="#fff">'
      + "&lt;2&gt;</text>",
    '<rect x="1" y="2" width="3" height="4" fill="none" stroke="#123456" stroke-width="0.25" stroke-linecap="round"/>',
    "</g>", '<g transform="matrix(10 0 0 10 10 20)">', '<rect x="1" y="0" width="1" height="1" fill="#abc"/>', "</g>", "</g>",
  ]);
});

test("the board as SVG: the base, the answer and the marks, each a layer, as the view shows them", () => {
  const document = parseHTML('<div><canvas id="map"></canvas></div>');
  const canvas = document.getElementById("map");
  canvas.box = { left: 0, top: 0, width: 200, height: 100 };
  const scope = load(["common.js", "view.js"], { document, Path2D, devicePixelRatio: 2, requestAnimationFrame: () => {},
    ResizeObserver: class { observe() {} } });
  const V = scope.PlannerView;
  const view = new V.MapView(canvas, [0, 0, 10, 10], false, (ctx) => ctx.fillRect(0, 0, 10, 10),
    (ctx, v) => { ctx.lineWidth = v.lineWidth(2); ctx.beginPath(); ctx.moveTo(1, 1); ctx.lineTo(9, 9); ctx.stroke(); });
  view.drawScreen = (ctx) => V.disc(ctx, 20, 20, 5, "#000", "1");
  const text = V.boardSVG(view, "board");
  assert.match(text, /width="200" height="100" viewBox="0 0 200 100"/);
  const at = (name) => text.indexOf(`<g id="${name}">`);
  assert.ok(at("board") > 0 && at("board") < at("answer") && at("answer") < at("marks"));
  assert.match(text.slice(at("board"), at("answer")), /<rect x="0" y="0" width="200" height="100" fill="#fff"\/>/);
  const s = view.scale;
  assert.ok(text.includes(`<g transform="matrix(${s} 0 0 ${s} ${view.ox} ${view.oy})">`));  // world units, at 1 px a pixel
  assert.ok(text.slice(at("answer")).includes(`stroke-width="${Number((2 / s).toPrecision(6))}"`));
  assert.match(text.slice(at("marks")), /<text [^>]*>1<\/text>/);
});
