// The board on a canvas: pan (drag, two fingers), zoom (wheel, pinch, buttons, + and -), a cached base
// picture with the answer drawn over it, the pointer and the keyboard turned into board events; the board
// as a PNG, an SVG of its shapes, and on paper.
"use strict";

var PlannerView = (function () {
  class MapView {
    /**
     * ``box``: the world box [x0, y0, x1, y1] to fit; ``flipY``: world y grows upwards (a map) or
     * downwards (a grid's rows).  ``drawBase(ctx, view)`` and ``drawOver(ctx, view)`` paint in
     * world coordinates (the transform is set); ``lineWidth(px)`` gives a width in world units.
     */
    constructor(canvas, box, flipY, drawBase, drawOver) {
      Object.assign(this, { canvas, box, flipY, drawBase, drawOver });
      this.ctx = canvas.getContext("2d");
      this.base = document.createElement("canvas");
      this.scale = 1;
      this.ox = 0;
      this.oy = 0;
      this.dirty = true;
      this.pending = false;
      this.listeners = {};
      this.drag = null;
      this.resize();
      this.fit();
      new ResizeObserver(() => this.resized()).observe(canvas);
      this.bindPointer();
    }

    on(name, fn) {
      this.listeners[name] = fn;
    }

    emit(name, ...args) {
      if (this.listeners[name]) this.listeners[name](...args);
    }

    /**
     * The board's size changed (a window resized, a tablet turned): a board as fitted is fitted again, else what
     * was at the centre stays there; a board hidden (no size: on paper, in a closed frame) keeps its view.
     */
    resized() {
      const r = this.canvas.getBoundingClientRect();
      if (!r.width || !r.height) return;
      const fitted = this.fitted, [cx, cy] = this.toWorld(this.w / 2, this.h / 2);
      this.resize();
      if (fitted) return this.fit();
      const [sx, sy] = this.toScreen(cx, cy);
      this.move(1, this.w / 2 - sx, this.h / 2 - sy);
    }

    resize() {
      const r = this.canvas.getBoundingClientRect();
      this.dpr = window.devicePixelRatio || 1;
      this.w = Math.max(1, r.width);
      this.h = Math.max(1, r.height);
      for (const c of [this.canvas, this.base]) {
        c.width = Math.round(this.w * this.dpr);
        c.height = Math.round(this.h * this.dpr);
      }
    }

    fit(box = this.box) {
      const [x0, y0, x1, y1] = box;
      const pad = 12;
      this.scale = Math.min((this.w - 2 * pad) / Math.max(x1 - x0, 1e-12), (this.h - 2 * pad) / Math.max(y1 - y0, 1e-12));
      this.ox = (this.w - this.scale * (x1 - x0)) / 2 - this.scale * x0;
      const sy = this.flipY ? -this.scale : this.scale;
      this.oy = this.flipY ? (this.h + this.scale * (y1 - y0)) / 2 + this.scale * y0
        : (this.h - this.scale * (y1 - y0)) / 2 - sy * y0;
      this.fitted = box === this.box;
      this.redraw(true);
    }

    /** Screen (CSS pixels, relative to the canvas) of a world point, and back. */
    toScreen(x, y) {
      return [this.ox + this.scale * x, this.oy + (this.flipY ? -1 : 1) * this.scale * y];
    }

    toWorld(px, py) {
      return [(px - this.ox) / this.scale, (py - this.oy) / ((this.flipY ? -1 : 1) * this.scale)];
    }

    lineWidth(px) {
      return px / this.scale;
    }

    zoom(factor, px = this.w / 2, py = this.h / 2) {
      this.move(factor, px * (1 - factor), py * (1 - factor));  // (the point (px, py) stays where it is)
    }

    pan(dx, dy) {
      this.move(1, dx, dy);
    }

    /** Move what the screen shows: a point at screen ``p`` goes to ``k p + (dx, dy)``. */
    move(k, dx, dy) {
      this.fitted = false;
      this.scale *= k;
      this.ox = k * this.ox + dx;
      this.oy = k * this.oy + dy;
      this.redraw(true);
    }

    worldTransform(ctx, dpr = this.dpr) {
      ctx.setTransform(dpr * this.scale, 0, 0, dpr * (this.flipY ? -1 : 1) * this.scale, dpr * this.ox, dpr * this.oy);
    }

    /** Paint now (the base again when ``base``, else only what is drawn over it). */
    paint(base = false) {
      if (base || this.dirty) {
        const b = this.base.getContext("2d");
        b.setTransform(1, 0, 0, 1, 0, 0);
        b.clearRect(0, 0, this.base.width, this.base.height);
        this.worldTransform(b);
        this.drawBase(b, this);
        this.dirty = false;
      }
      const ctx = this.ctx, g = this.drag;
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
      if (g && g.moved) {  // a drag or a pinch: the base moved and scaled as it says, the answer when it ends
        ctx.setTransform(g.k, 0, 0, g.k, g.dx * this.dpr, g.dy * this.dpr);
        ctx.drawImage(this.base, 0, 0);
        return;
      }
      ctx.drawImage(this.base, 0, 0);
      this.drawTop(ctx, this.dpr);
    }

    /** What is drawn over the base: the answer (world coordinates), then the marks (screen pixels). */
    drawTop(ctx, dpr, layer = () => {}) {
      layer("answer");
      this.worldTransform(ctx, dpr);
      this.drawOver(ctx, this);
      layer("marks");
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      if (this.drawScreen) this.drawScreen(ctx, this);
    }

    /**
     * The board as it is shown -- base, answer and marks, on white -- drawn whole into ``ctx`` (another canvas,
     * or an :class:`SvgContext`) at ``dpr`` device pixels a CSS pixel.  ``ctx.layer(name)``, when it has one, is
     * told where each of the three starts.
     */
    picture(ctx, dpr) {
      const layer = (name) => { if (ctx.layer) ctx.layer(name); };
      layer("board");
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, this.w, this.h);
      this.worldTransform(ctx, dpr);
      this.drawBase(ctx, this);
      this.drawTop(ctx, dpr, layer);
    }

    /** Paint at the next frame (coalesced). */
    redraw(base = false) {
      this.dirty = this.dirty || base;
      if (this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => {
        this.pending = false;
        this.paint();
      });
    }

    /**
     * The pointer (a mouse, a pen, fingers): one hovers, clicks, and drags to pan; a second finger makes it a
     * pinch -- the two fingers' distance zooms, their midpoint pans -- and lifting one goes on panning with the
     * other.  While a gesture lasts (``drag``: the screen's move so far, a point at ``p`` shown at ``k p + d``)
     * the cached base is drawn moved and scaled, nothing computed; its end moves the view.
     */
    bindPointer() {
      const c = this.canvas;
      const at = (e) => {
        const r = c.getBoundingClientRect();
        return [e.clientX - r.left, e.clientY - r.top];
      };
      const down = new Map();  // the pointers pressed on the board: id -> where they are now
      const rebase = (g) => {  // the fingers changed: the gesture goes on from here
        Object.assign(g, { k0: g.k, d0: [g.dx, g.dy], from: Array.from(down.values()) });
      };
      c.addEventListener("pointerdown", (e) => {
        if (down.size >= 2) return;  // (a third finger changes nothing)
        down.set(e.pointerId, at(e));
        c.setPointerCapture(e.pointerId);
        if (!this.drag) this.drag = { k: 1, dx: 0, dy: 0, moved: false };
        else this.drag.moved = true;  // two fingers: a pinch, never a click
        rebase(this.drag);
      });
      c.addEventListener("pointermove", (e) => {
        const [px, py] = at(e), g = this.drag;
        if (g && down.has(e.pointerId)) {
          down.set(e.pointerId, [px, py]);
          const now = Array.from(down.values()), [a0, b0] = g.from, [a, b] = now;
          let k = 1, dx = a[0] - a0[0], dy = a[1] - a0[1];  // one finger: the pan it made
          if (b && b0) {  // two: the zoom of their distance about their midpoint, and the midpoint's move
            k = Math.hypot(b[0] - a[0], b[1] - a[1]) / (Math.hypot(b0[0] - a0[0], b0[1] - a0[1]) || 1) || 1;
            dx = (a[0] + b[0]) / 2 - (k * (a0[0] + b0[0])) / 2;
            dy = (a[1] + b[1]) / 2 - (k * (a0[1] + b0[1])) / 2;
          }
          if (g.moved || Math.hypot(dx, dy) > 4) {
            Object.assign(g, { moved: true, k: k * g.k0, dx: k * g.d0[0] + dx, dy: k * g.d0[1] + dy });
            this.redraw();
            return;
          }
        }
        this.emit("hover", px, py, e.timeStamp);
      });
      const end = (e, click) => {
        if (!down.has(e.pointerId)) return;
        down.delete(e.pointerId);
        const g = this.drag;
        if (down.size) {  // one finger of a pinch lifted: the other pans on
          rebase(g);
          return;
        }
        this.drag = null;
        if (g.moved) this.move(g.k, g.dx, g.dy);
        else if (click) {
          const [px, py] = at(e);
          this.emit("pick", px, py);
        }
      };
      c.addEventListener("pointerup", (e) => end(e, true));
      c.addEventListener("pointercancel", (e) => end(e, false));
      c.addEventListener("pointerleave", () => { if (!this.drag) this.emit("leave"); });
      c.addEventListener("wheel", (e) => {
        e.preventDefault();
        const [px, py] = at(e);
        this.zoom(Math.exp(-e.deltaY * 0.0015), px, py);
      }, { passive: false });
      c.addEventListener("keydown", (e) => {
        const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
        if (e.key in arrows) {
          e.preventDefault();
          const [dx, dy] = arrows[e.key];
          if (e.shiftKey) this.pan(-dx * this.w / 5, -dy * this.h / 5);
          else this.emit("move", dx, dy);
        } else if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          this.emit("enter");
        } else if (e.key === "+" || e.key === "=") {
          this.zoom(1.25);
        } else if (e.key === "-" || e.key === "_") {
          this.zoom(0.8);
        } else if (e.key === "0") {
          this.fit();
        } else if (e.key === "Escape") {
          this.emit("escape");
        }
      });
      c.addEventListener("focus", () => this.emit("focus"));
    }

    /** The zoom buttons (+, -, fit) inside ``holder``. */
    buttons(holder) {
      for (const [text, label, fn] of [["+", "zoom in", () => this.zoom(1.4)], ["\u2212", "zoom out", () => this.zoom(1 / 1.4)],
        ["\u2922", "fit the board", () => this.fit()]]) {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = text;
        b.title = label;
        b.setAttribute("aria-label", label);
        b.addEventListener("click", fn);
        holder.appendChild(b);
      }
    }
  }

  /** A colour ramp from dark purple through blue and green to yellow (viridis' stops), t in [0, 1]. */
  const RAMP = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];

  function ramp(t) {
    t = Math.min(Math.max(t, 0), 1) * (RAMP.length - 1);
    const i = Math.min(Math.floor(t), RAMP.length - 2), f = t - i;
    const c = RAMP[i].map((v, k) => Math.round(v + f * (RAMP[i + 1][k] - v)));
    return `rgb(${c[0]},${c[1]},${c[2]})`;
  }

  const TURN_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf"];

  /** The colour of turn ``k`` (1-based) of ``n`` (tab10, as the pictures colour turns). */
  function turnColor(k, n) {
    if (n <= 10) return TURN_COLORS[(k - 1) % 10];
    return ramp((0.9 * (k - 1)) / Math.max(n - 1, 1));
  }

  /** A numbered disc at screen point (x, y). */
  function disc(ctx, x, y, r, fill, text) {
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fillStyle = fill;
    ctx.fill();
    ctx.lineWidth = 1.5;
    ctx.strokeStyle = "#fff";
    ctx.stroke();
    if (text) {
      ctx.fillStyle = "#fff";
      ctx.font = `bold ${Math.round(r * 1.05)}px sans-serif`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(text, x, y + 0.5);
    }
  }

  function star(ctx, x, y, r) {
    ctx.beginPath();
    for (let i = 0; i < 10; i++) {
      const a = -Math.PI / 2 + (i * Math.PI) / 5, rr = i % 2 ? r * 0.45 : r;
      ctx.lineTo(x + rr * Math.cos(a), y + rr * Math.sin(a));
    }
    ctx.closePath();
    ctx.fillStyle = "#ffd400";
    ctx.fill();
    ctx.lineWidth = 1.2;
    ctx.strokeStyle = "#000";
    ctx.stroke();
  }

  function el(tag, attrs = {}, text = null) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== null) e.textContent = text;
    return e;
  }

  /** The status line: a message, or an error (role alert). */
  function status(node, message, error = false) {
    node.textContent = message;
    node.className = error ? "error" : "";
    node.setAttribute("role", error ? "alert" : "status");
  }

  /** A legend: a ramp from ``low`` to ``high`` with its title (``reverse``: bright at ``low``). */
  function legend(node, title, low, high, reverse = false) {
    node.textContent = "";
    if (title === null) return;
    const stops = [0, 0.25, 0.5, 0.75, 1].map((t) => ramp(reverse ? 1 - t : t)).join(",");
    node.append(el("span", {}, title), el("span", {}, low));
    const bar = el("span", { class: "ramp" });
    bar.style.background = `linear-gradient(to right, ${stops})`;
    node.append(bar, el("span", {}, high));
  }

  // -- the hover preview ---------------------------------------------------------------------------
  /**
   * The hover preview's scheduler: the pointer's latest target is asked at most once a frame (moves between frames
   * are coalesced), answers are kept (a target pointed at again is a read-out), and a question known to be slow
   * goes to a worker -- the page's own scripts in a Blob, no file fetched -- so the pointer never waits for it.
   *
   * ``ask(q)``: the answer now; ``slow(q, ms)``: whether to ask the worker (``ms``: what the last question of
   * ``q.kind`` took here, if one was asked); ``show(q, answer, working)``: draw it
   * (``answer`` null while the worker works; ``{error}`` for a refused question).  ``worker``: ``{scripts,
   * main, data}``, the ids of the page's script elements, the worker's own script and the text it starts from.
   */
  class Preview {
    constructor({ ask, slow, show, worker = null }) {
      Object.assign(this, { ask, slow, show });
      this.latest = null;
      this.frame = false;
      this.kept = new Map();
      this.busy = null;  // the key the worker answers now (the pointer's latest target is asked after it)
      this.lastMs = 0;
      this.took = {};  // the last time (ms) a question of each ``q.kind`` took here
      this.worker = worker ? Preview.startWorker(worker, (m) => this.answered(m)) : null;
      if (this.worker) {
        this.worker.onerror = (e) => {  // (a worker refused or broken: ask here, as without one)
          e.preventDefault();
          this.worker = null;
          this.busy = null;
          this.run();
        };
      }
    }

    static startWorker({ scripts, main, data }, back) {
      try {
        const text = scripts.map((id) => document.getElementById(id).textContent).join("\n") + "\n" + main;
        const w = new Worker(URL.createObjectURL(new Blob([text], { type: "text/javascript" })));
        w.onmessage = (e) => back(e.data);
        w.postMessage({ data });
        return w;
      } catch (e) {
        return null;  // (no worker here: a slow question is asked once the pointer rests, the page said working)
      }
    }

    /** Ask ``q`` (``q.key`` names it) for the pointer's event at ``since`` (performance.now's clock). */
    request(q, since = performance.now()) {
      this.latest = { ...q, since };
      if (this.frame) return;
      this.frame = true;
      requestAnimationFrame(() => {
        this.frame = false;
        this.run();
      });
    }

    /** Nothing pointed at: no preview (an answer still on its way is dropped when it comes). */
    cancel() {
      this.latest = null;
      clearTimeout(this.rest);
    }

    /** Forget the answers kept (the plan's options changed). */
    forget() {
      this.kept.clear();
    }

    run() {
      const q = this.latest;
      clearTimeout(this.rest);
      if (!q) return;
      if (this.kept.has(q.key)) return this.done(q, this.kept.get(q.key));
      if (!this.slow(q, this.took[q.kind])) return this.done(q, this.compute(q));
      this.show(q, null, true);
      if (this.worker) {
        if (this.busy === null) this.post(q);
      } else {
        this.rest = setTimeout(() => { if (this.latest === q) this.done(q, this.compute(q)); }, 250);
      }
    }

    compute(q) {
      let answer;
      const t0 = performance.now();
      try {
        answer = this.ask(q);
      } catch (e) {
        if (!(e instanceof EidomapCommon.RequestError)) throw e;
        answer = { error: e.message };
      }
      this.took[q.kind] = performance.now() - t0;
      this.keep(q.key, answer);
      return answer;
    }

    keep(key, answer) {
      if (this.kept.size > 500) this.kept.delete(this.kept.keys().next().value);  // (bounded: the oldest goes)
      this.kept.set(key, answer);
    }

    post(q) {
      this.busy = q.key;
      this.worker.postMessage({ key: q.key, question: q.question });
    }

    answered(m) {
      if (m.key !== this.busy) return;
      this.busy = null;
      this.keep(m.key, m.error !== undefined ? { error: m.error } : m.answer);
      const q = this.latest;  // what the pointer is on now: shown, or asked next
      if (q && q.key === m.key) this.done(q, this.kept.get(m.key));
      else if (q && !this.kept.has(q.key) && this.slow(q, this.took[q.kind])) this.post(q);
    }

    done(q, answer) {
      this.show(q, answer, false);
      this.lastMs = performance.now() - q.since;
    }
  }

  /** The worker's own script: ``make(data)`` builds the planner, ``ask(planner, question)`` answers. */
  function workerMain(make, ask) {
    return `"use strict";
let planner = null;
const make = ${make}, ask = ${ask};
self.onmessage = (e) => {
  const m = e.data;
  if (m.data !== undefined) { planner = make(JSON.parse(m.data)); return; }
  try { self.postMessage({ key: m.key, answer: ask(planner, m.question) }); }
  catch (err) { self.postMessage({ key: m.key, error: String(err && err.message) }); }
};`;
  }

  // -- dragging from the start (issue 48, 1) ---------------------------------------------------------------------
  /**
   * A press on the start's token that drags: taken before the board pans (a capturing listener on the board's box,
   * as a stop's drag), the pointer's moves given to ``over(px, py, since)`` -- the page's hover, whose preview then
   * follows the pointer -- and the release to ``drop(px, py, moved)`` (``moved`` false: a press that did not move,
   * the page's click).  ``grabs(px, py)`` says whether a press there takes the token.  Mouse, pen and touch alike.
   */
  function dragFrom(view, grabs, over, drop) {
    const canvas = view.canvas, box = document.getElementById("board");  // (the box the board is drawn in)
    let held = null;
    const point = (e) => {
      const r = canvas.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top];
    };
    const mine = (e) => held && e.pointerId === held.id;
    box.addEventListener("pointerdown", (e) => {
      if (held || e.target !== canvas || e.button || e.shiftKey || !grabs(...point(e))) return;
      e.stopPropagation();
      held = { id: e.pointerId, from: point(e), moved: false };
      canvas.setPointerCapture(e.pointerId);
    }, true);
    box.addEventListener("pointermove", (e) => {
      if (!mine(e)) return;
      e.stopPropagation();
      const [px, py] = point(e);
      held.moved = held.moved || Math.hypot(px - held.from[0], py - held.from[1]) > 4;
      if (held.moved) over(px, py, e.timeStamp);
    }, true);
    box.addEventListener("pointerup", (e) => {
      if (!mine(e)) return;
      e.stopPropagation();
      const { moved } = held;
      held = null;
      drop(...point(e), moved);
    }, true);
    box.addEventListener("pointercancel", (e) => {
      if (!mine(e)) return;
      e.stopPropagation();
      held = null;
      view.redraw();
    }, true);
  }

  // -- the plan as a link and as a file ----------------------------------------------------------------
  /** Most bytes a plan file may have (a plan is a few hundred; a bigger file is not one). */
  const MAX_PLAN_BYTES = 1 << 20;
  /** Most changes undone (the oldest forgotten: memory bounded however long the session). */
  const MAX_UNDO = 500;

  /**
   * A plan -- the page's choices, ``{name: text}`` and ``{name: [text]}`` for the ``fields`` marked ``"many"`` -- in
   * the page's address (its ``#`` part: a link restores it, from ``file://`` too) and in a small JSON file.  What a
   * link or a file holds is checked whole (``check`` throws a RequestError) before ``apply`` changes anything.
   */
  class PlanLink {
    constructor({ kind, fields, check, apply }) {
      Object.assign(this, { kind, fields, check, apply });
      // undo and redo: the plans before and after the one now, as their links' texts
      this.past = [];
      this.future = [];
      this.now = null;
      this.replaying = false;
      this.changed = () => {};
      this.followers = [];
      this.address = null;  // the hash published but not yet written into the page's address (null: none)
    }

    /** Call ``fn(plan)`` with each plan published from now on (the notebook widget's bridge: widget.mjs). */
    follow(fn) {
      this.followers.push(fn);
    }

    /** Check ``plan`` whole, then apply it as the plan the page opened with: nothing before it to undo. */
    reopen(plan) {
      this.check(plan);
      this.past = [];
      this.future = [];
      this.now = null;
      this.apply(plan);
    }

    /** The plan is now ``hash``: the one before it can be undone (a change after an undo: nothing to redo). */
    remember(hash) {
      if (this.now !== null && hash !== this.now && !this.replaying) {
        this.past.push(this.now);
        if (this.past.length > MAX_UNDO) this.past.shift();
        this.future = [];
      }
      this.now = hash;
      this.changed();
    }

    /** Undo (``back``) or redo one change of the plan; false when there is none. */
    step(back) {
      const from = back ? this.past : this.future, to = back ? this.future : this.past;
      if (!from.length) return false;
      to.push(this.now);
      const hash = from.pop();
      this.replaying = true;
      try {
        this.apply(this.decode(hash));
      } finally {
        this.replaying = false;
      }
      return true;
    }

    /** The ``#`` part's text of ``plan`` (empty fields left out). */
    encode(plan) {
      const params = new URLSearchParams();
      for (const [name, how] of Object.entries(this.fields)) {
        if (how === "many") for (const v of plan[name]) params.append(name, v);
        else if (plan[name] !== "") params.set(name, plan[name]);
      }
      return params.toString();
    }

    /** A plan from its fields as read (a link's or a file's), every field there: "" or [] when absent. */
    whole(read, what) {
      const plan = {};
      for (const name of Object.keys(read)) {
        if (!Object.hasOwn(this.fields, name)) {
          throw new EidomapCommon.RequestError(`${what}: no field ${EidomapCommon.repr(name)} in a plan (its fields: `
            + `${Object.keys(this.fields).join(", ")})`);
        }
      }
      for (const [name, how] of Object.entries(this.fields)) {
        const v = Object.hasOwn(read, name) ? read[name] : how === "many" ? [] : "";
        const ok = how === "many" ? Array.isArray(v) && v.every((x) => typeof x === "string") : typeof v === "string";
        if (!ok) {
          throw new EidomapCommon.RequestError(`${what}: ${name} must be ${how === "many" ? "a list of texts" : "a text"},`
            + ` got ${EidomapCommon.repr(v)}`);
        }
        plan[name] = v;
      }
      return plan;
    }

    /** The plan of a link's ``#`` part (``hash`` without the ``#``). */
    decode(hash) {
      const params = new URLSearchParams(hash), read = {};
      for (const [name, v] of params) {
        if (this.fields[name] === "many") (read[name] = read[name] || []).push(v);
        else read[name] = v;
      }
      return this.whole(read, "the link's plan");
    }

    /** The plan of a plan file's text (``name``: the file's, as the error names it). */
    fromFile(name, text) {
      let doc;
      try {
        doc = JSON.parse(text);
      } catch (e) {
        throw new EidomapCommon.RequestError(`${name}: not a plan (not JSON)`);
      }
      if (doc === null || typeof doc !== "object" || Array.isArray(doc) || doc.eidomap_plan !== 1) {
        throw new EidomapCommon.RequestError(`${name}: not a plan (no "eidomap_plan": 1)`);
      }
      if (doc.page !== this.kind) {
        throw new EidomapCommon.RequestError(`${name}: a plan for the ${EidomapCommon.repr(doc.page)} page, this is the`
          + ` ${EidomapCommon.repr(this.kind)} page`);
      }
      const read = { ...doc };
      for (const said of ["eidomap_plan", "page", "map"]) delete read[said];
      return this.whole(read, name);
    }

    /** The file's text of ``plan`` (``map``: the map's file, said for the reader). */
    toFile(plan, map) {
      return JSON.stringify({ eidomap_plan: 1, page: this.kind, map, ...plan }, null, 1) + "\n";
    }

    /** Check ``plan`` whole, then apply it; a refusal is thrown, nothing changed. */
    restore(plan) {
      this.check(plan);
      this.apply(plan);
    }

    /**
     * The page opens: the plan of its link restored, or ``answer()`` for the page as it is; a link refused is said
     * (``refused(message)``) and left in the address until the plan changes.
     */
    opening(answer, refused) {
      const given = location.hash.slice(1);
      if (given) {
        try {
          this.restore(this.decode(given));
          return;
        } catch (e) {
          if (!(e instanceof EidomapCommon.RequestError)) throw e;
          this.quiet = true;
          answer();
          this.quiet = false;
          refused(e.message);
          return;
        }
      }
      answer();
    }

    /**
     * The page's address says ``plan`` (replaced, not a new history entry; a frame that refuses: left) once the
     * task publishing it is done: a script changing several controls in one go (a plan restored, a journey typed
     * by a test) writes the address once, with the last plan, not once a change -- each write is a call into the
     * browser that cost more than the answer.
     */
    publish(plan) {
      const hash = this.encode(plan);
      this.remember(hash);
      for (const fn of this.followers) fn(plan);
      if (this.quiet) return;
      if (this.address === null) queueMicrotask(() => this.flush());
      this.address = hash;
    }

    /** Write the plan published last into the page's address now (nothing waiting: nothing to do). */
    flush() {
      const hash = this.address;
      if (hash === null) return;
      this.address = null;
      if (location.hash.slice(1) === hash) return;
      try {
        history.replaceState(null, "", hash ? `#${hash}` : location.pathname + location.search);
      } catch (e) {
        // (a page shown in a notebook's frame has an address of its own it may not change)
      }
    }
  }

  /** Hand the browser a file to save (a download of ``blob`` named ``name``). */
  function download(blob, name) {
    const a = el("a", { href: URL.createObjectURL(blob), download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  }

  /** Read the file a person chose in ``input`` (at most MAX_PLAN_BYTES) and give ``done(name, text)``. */
  function readChosen(input, done, refused) {
    const file = input.files && input.files[0];
    input.value = "";
    if (!file) return;
    if (file.size > MAX_PLAN_BYTES) {
      refused(`${EidomapCommon.repr(file.name)}: ${file.size.toLocaleString("en")} bytes, not a plan (a plan is a few`
        + ` hundred; at most ${MAX_PLAN_BYTES.toLocaleString("en")})`);
      return;
    }
    file.text().then((text) => done(EidomapCommon.repr(file.name), text));
  }

  /**
   * The plan's buttons (``plan.html``): copy the link, save and open a plan file.  ``current()``: the plan now;
   * ``say(message, error)``: the status line; ``map``: the map's file name.
   */
  function planButtons(link, current, say, map) {
    const $ = (id) => document.getElementById(id);
    $("copy-link").addEventListener("click", () => {
      link.flush();  // (a plan published in this task too)
      const href = location.href;
      const copied = () => say("The link of this plan is copied: open it to restore the plan.");
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(href).then(copied, () => say(`Copy this link: ${href}`));
      } else say(`Copy this link: ${href}`);
    });
    $("save-plan").addEventListener("click", () => {
      download(new Blob([link.toFile(current(), map)], { type: "application/json" }),
        `${map.replace(/\.[^.]*$/, "") || "map"}-plan.json`);
    });
    $("open-plan").addEventListener("change", (e) => readChosen(e.target, (name, text) => {
      try {
        link.restore(link.fromFile(name, text));
        say(`Opened the plan ${name}.`);
      } catch (err) {
        if (!(err instanceof EidomapCommon.RequestError)) throw err;
        say(err.message, true);
      }
    }, (message) => say(message, true)));
    const undo = $("undo"), redo = $("redo");
    link.changed = () => {
      undo.disabled = !link.past.length;
      redo.disabled = !link.future.length;
    };
    undo.addEventListener("click", () => link.step(true));
    redo.addEventListener("click", () => link.step(false));
    document.addEventListener("keydown", (e) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      const t = e.target;  // (in a text field, Ctrl+Z undoes the typing: the browser's)
      if (t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && !["radio", "checkbox", "button", "file"].includes(t.type)))) return;
      const k = e.key.toLowerCase();
      if (k === "z" || k === "y") {
        e.preventDefault();
        link.step(k === "z" && !e.shiftKey);
      }
    });
    window.addEventListener("hashchange", () => {  // a link edited or followed in the same page
      try {
        link.restore(link.decode(location.hash.slice(1)));
      } catch (err) {
        if (!(err instanceof EidomapCommon.RequestError)) throw err;
        say(err.message, true);
      }
    });
  }

  // -- the board as a picture: PNG, SVG, paper; and folded into a phone's width -----------------------------------
  /** The text of each Path2D made by ``path`` (an SVG is written from it: a browser's Path2D does not tell it). */
  const pathText = new WeakMap();

  /** A Path2D of SVG path text ``d`` that an :class:`SvgContext` can draw too. */
  function path(d) {
    const p = new Path2D(d);
    pathText.set(p, d);
    return p;
  }

  /** A number as an SVG attribute says it: 3 decimals (the pages' coordinates are whole steps or squares). */
  const num = (v) => String(Math.round(v * 1000) / 1000);
  const escapeXML = (text) => String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

  /** A canvas colour as SVG takes it everywhere: ``rgba(r,g,b,a)`` split into ``rgb(r,g,b)`` and an opacity. */
  function paint(color, alpha) {
    const m = /^rgba\(\s*([^,]+),([^,]+),([^,]+),\s*([\d.]+)\s*\)$/.exec(String(color));
    return m ? [`rgb(${m[1].trim()},${m[2].trim()},${m[3].trim()})`, alpha * Number(m[4])] : [String(color), alpha];
  }

  const STYLE = { fillStyle: "#000", strokeStyle: "#000", lineWidth: 1, lineCap: "butt", lineJoin: "miter",
    globalAlpha: 1, font: "10px sans-serif", textAlign: "start", textBaseline: "alphabetic", imageSmoothingEnabled: true };

  /**
   * A drawing context that writes SVG: what the pages draw with (paths, arcs, rectangles, text, the transform,
   * dashes, opacity) becomes SVG elements, so the board exported is the board drawn, in real shapes.  A Path2D is
   * drawn when ``path`` made it; an image when it has ``vector(ctx)`` drawing it in its own pixels (a grid's squares).
   * ``layer(name)`` starts a group ``<g id="name">``.
   */
  class SvgContext {
    constructor(width, height, title = "") {
      Object.assign(this, { width, height, title }, STYLE);
      this.out = [];
      this.m = [1, 0, 0, 1, 0, 0];
      this.d = "";
      this.dash = [];
      this.open = { layer: false, group: null };
    }

    layer(name) {
      this.close();
      if (this.open.layer) this.out.push("</g>");
      this.out.push(`<g id="${escapeXML(name)}">`);
      this.open.layer = true;
    }

    close() {
      if (this.open.group !== null) this.out.push("</g>");
      this.open.group = null;
    }

    /** An element, in a group of the transform now (one group for a run of elements under the same). */
    emit(tag, attrs, text = null) {
      const t = this.m.map((v) => Number(v.toPrecision(9))).join(" ");
      if (t !== this.open.group) {
        this.close();
        this.out.push(`<g transform="matrix(${t})">`);
        this.open.group = t;
      }
      const a = Object.entries(attrs).filter(([, v]) => v !== null).map(([k, v]) => ` ${k}="${escapeXML(v)}"`).join("");
      this.out.push(text === null ? `<${tag}${a}/>` : `<${tag}${a}>${escapeXML(text)}</${tag}>`);
    }

    fillAttrs() {
      const [fill, opacity] = paint(this.fillStyle, this.globalAlpha);
      return { fill, "fill-opacity": opacity < 1 ? num(opacity) : null };
    }

    strokeAttrs() {
      const [stroke, opacity] = paint(this.strokeStyle, this.globalAlpha);
      return { fill: "none", stroke, "stroke-opacity": opacity < 1 ? num(opacity) : null, "stroke-width": Number(this.lineWidth.toPrecision(6)),
        "stroke-linecap": this.lineCap === "butt" ? null : this.lineCap, "stroke-linejoin": this.lineJoin === "miter" ? null : this.lineJoin,
        "stroke-dasharray": this.dash.length ? this.dash.map((v) => Number(v.toPrecision(6))).join(" ") : null };
    }

    /** The path text of a Path2D argument, or the path being built. */
    textOf(p) {
      if (p === null) return this.d;
      const d = pathText.get(p);
      if (d === undefined) throw new Error("an SVG picture draws the Path2D objects PlannerView.path made, no other");
      return d;
    }

    setTransform(a, b, c, d, e, f) {
      this.m = [a, b, c, d, e, f];
    }

    setLineDash(d) {
      this.dash = Array.from(d);
    }

    beginPath() {
      this.d = "";
    }

    moveTo(x, y) {
      this.d += `M${num(x)} ${num(y)}`;
    }

    lineTo(x, y) {
      this.d += `${this.d ? "L" : "M"}${num(x)} ${num(y)}`;
    }

    closePath() {
      this.d += "Z";
    }

    /** A canvas's arc: a line from the point before it to its start, then at most half a turn an SVG arc. */
    arc(x, y, r, a0, a1, ccw = false) {
      const turn = 2 * Math.PI, span = ccw ? a0 - a1 : a1 - a0;
      let left = span >= turn ? turn : ((span % turn) + turn) % turn, a = a0;
      this.lineTo(x + r * Math.cos(a), y + r * Math.sin(a));
      while (left > 1e-12) {
        const step = Math.min(left, Math.PI);
        a += ccw ? -step : step;
        left -= step;
        this.d += `A${num(r)} ${num(r)} 0 0 ${ccw ? 0 : 1} ${num(x + r * Math.cos(a))} ${num(y + r * Math.sin(a))}`;
      }
    }

    fill(p = null, rule = "nonzero") {
      if (typeof p === "string") [p, rule] = [null, p];
      const d = this.textOf(p);
      if (d) this.emit("path", { d, ...this.fillAttrs(), "fill-rule": rule === "evenodd" ? "evenodd" : null });
    }

    stroke(p = null) {
      const d = this.textOf(p);
      if (d) this.emit("path", { d, ...this.strokeAttrs() });
    }

    fillRect(x, y, w, h) {
      this.emit("rect", { x: num(x), y: num(y), width: num(w), height: num(h), ...this.fillAttrs() });
    }

    strokeRect(x, y, w, h) {
      this.emit("rect", { x: num(x), y: num(y), width: num(w), height: num(h), ...this.strokeAttrs() });
    }

    /** A text's place, font, alignment and baseline, as the canvas's are set. */
    textAttrs(x, y) {
      const anchor = { center: "middle", right: "end", end: "end" }[this.textAlign] || null;
      const baseline = { middle: "central", top: "hanging", hanging: "hanging", bottom: "text-after-edge" }[this.textBaseline] || null;
      return { x: num(x), y: num(y), style: `font: ${this.font}`, "text-anchor": anchor, "dominant-baseline": baseline };
    }

    fillText(text, x, y) {
      this.emit("text", { ...this.textAttrs(x, y), ...this.fillAttrs() }, text);
    }

    /** A text's outline (a halo under a label: the token's debt in play mode). */
    strokeText(text, x, y) {
      this.emit("text", { ...this.textAttrs(x, y), ...this.strokeAttrs(), "stroke-linejoin": "round" }, text);
    }

    clearRect() {}  // (the picture starts white)

    /** An image with ``vector(ctx)``: drawn as shapes, its pixel (i, j) the unit square at (i, j) scaled to (w, h). */
    drawImage(image, x, y, w = image.width, h = image.height) {
      if (!image.vector) throw new Error("an SVG picture draws images that say how to draw themselves as shapes");
      const [a, b, c, d, e, f] = this.m, sx = w / image.width, sy = h / image.height;
      const saved = { m: this.m, ...Object.fromEntries(Object.keys(STYLE).map((k) => [k, this[k]])) };
      this.m = [a * sx, b * sx, c * sy, d * sy, a * x + c * y + e, b * x + d * y + f];
      image.vector(this);
      Object.assign(this, saved);
    }

    /** The SVG document. */
    text() {
      this.close();
      if (this.open.layer) this.out.push("</g>");
      this.open.layer = false;
      const w = num(this.width), h = num(this.height);
      return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"`
        + ` viewBox="0 0 ${w} ${h}">\n<title>${escapeXML(this.title)}</title>\n${this.out.join("\n")}\n</svg>\n`;
    }
  }

  /** The board as shown, as an SVG document's text. */
  function boardSVG(view, title) {
    const svg = new SvgContext(view.w, view.h, title);
    view.picture(svg, 1);
    return svg.text();
  }

  /** Draw the board as shown into ``canvas`` at ``dpr`` device pixels a CSS pixel (a PNG, a printed page). */
  function boardBitmap(view, canvas, dpr) {
    canvas.width = Math.max(1, Math.round(view.w * dpr));
    canvas.height = Math.max(1, Math.round(view.h * dpr));
    view.picture(canvas.getContext("2d"), dpr);
    return canvas;
  }

  /** Most pixels a side of the printed board has (about 8 inches at 300 per inch; 2 to 4 a CSS pixel). */
  const PRINT_PX = 2400;

  /**
   * The board's tools every page has: "Download PNG" and "Download SVG" of the board as shown, "Print" (on paper
   * the board -- drawn afresh at the printer's finer pixels -- the answer beside it, none of the controls), and on
   * a phone's width the controls folded into a panel a button opens over the page, the board staying where it is.
   * ``name``: the map's file name (the files are named after it).
   */
  function boardTools(view, name) {
    const $ = (id) => document.getElementById(id), stem = name.replace(/\.[^.]*$/, "") || "board";
    $("download-png").addEventListener("click", () => {
      boardBitmap(view, document.createElement("canvas"), view.dpr).toBlob((blob) => download(blob, `${stem}-board.png`), "image/png");
    });
    $("download-svg").addEventListener("click", () => {
      download(new Blob([boardSVG(view, document.title)], { type: "image/svg+xml" }), `${stem}-board.svg`);
    });
    $("print").addEventListener("click", () => window.print());
    const sheet = el("canvas", { id: "print-board", "aria-hidden": "true" });
    view.canvas.parentNode.appendChild(sheet);
    window.addEventListener("beforeprint", () => {
      boardBitmap(view, sheet, Math.min(4, Math.max(2, PRINT_PX / view.w)));
      // the answer's lines (the itinerary's, the status line and the key's): a long itinerary, a smaller board
      const lines = $("text").textContent.split("\n").length + 4;
      document.documentElement.style.setProperty("--answer-lines", String(lines));
    });
    window.addEventListener("afterprint", () => {
      sheet.width = sheet.height = 0;  // (its memory back)
    });
    panel($("controls"), view);
  }

  /**
   * On a phone's width: ``controls`` folded away, a button on the board opening them in a panel over the page; the
   * board as tall as the map is for its width (planner.css: at most 62% of the screen's height).
   */
  function panel(controls, view) {
    const app = controls.parentNode, board = view.canvas.parentNode, [x0, y0, x1, y1] = view.box;
    board.style.setProperty("--map-aspect", `${Math.max(x1 - x0, 1e-9)} / ${Math.max(y1 - y0, 1e-9)}`);
    const toggle = el("button", { id: "panel-toggle", type: "button", "aria-controls": "controls", "aria-expanded": "false" },
      "\u2630 Controls");
    const show = (open) => {
      app.setAttribute("data-panel", open ? "open" : "closed");
      toggle.setAttribute("aria-expanded", String(open));
      toggle.textContent = open ? "\u2715 Close" : "\u2630 Controls";
    };
    toggle.addEventListener("click", () => show(app.getAttribute("data-panel") !== "open"));
    controls.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && app.getAttribute("data-panel") === "open") {
        show(false);
        toggle.focus();
      }
    });
    board.appendChild(toggle);
    show(false);
  }

  // -- several tokens racing to one goal (issue 48, 9): what the board page's race and the battle page's share ------
  /** The most tokens in a race: token 1 (the plan) and seven movers. */
  const MAX_TOKENS = 8;
  /** Each token's colour: Okabe and Ito's eight, told apart with every common colour blindness. */
  const TOKEN_COLORS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442"];

  /** A swatch of token ``i``'s colour (``i`` from 0: token 1). */
  function tokenSwatch(i) {
    const s = el("span", { class: "swatch" });
    s.style.background = TOKEN_COLORS[i % MAX_TOKENS];
    return s;
  }

  /** Each token's start: a disc in its colour, numbered (``points``: screen points, null for a token not placed). */
  function tokenDiscs(ctx, points) {
    points.forEach((p, i) => {
      if (p) disc(ctx, p[0], p[1], 9, TOKEN_COLORS[i], String(i + 1));
    });
  }

  /**
   * The movers of a plan (``texts``, token 2 on), each read by ``read(params, what)`` from its fields: at most
   * seven, no field but ``fields`` (else the one line saying what is wrong).
   */
  function readMovers(texts, fields, read) {
    if (texts.length > MAX_TOKENS - 1) {
      throw new EidomapCommon.RequestError(`the plan has ${texts.length} movers besides token 1, at most ${MAX_TOKENS - 1}`);
    }
    return texts.map((text, i) => {
      const p = new URLSearchParams(text), what = `the plan's token ${i + 2}`;
      for (const key of p.keys()) {
        if (!fields.includes(key)) {
          throw new EidomapCommon.RequestError(`${what}: no field ${EidomapCommon.repr(key)} (a mover's fields: ${fields.join(", ")})`);
        }
      }
      return read(p, what);
    });
  }

  /**
   * The list of a race's tokens, as both pages show it: token 1 (the plan above), then a row per mover of
   * ``state.movers`` -- its start, typed or picked on the board (``state.placing``: the row picked, or the movers'
   * count for a new mover), the page's own fields, and a button removing it -- and the row of a mover being placed.
   * The rows stay on the page (hidden when there are fewer movers) and their values are set again, so that a field
   * a person is in keeps the focus.  What differs between the pages comes in ``o``:
   *
   * - ``state``; the page's elements ``list``, ``add`` (Add mover), ``first``, ``pending`` and ``board`` (focused
   *   while a start is picked); ``where``: "board" or "grid";
   * - ``answer()``, the page answering again; ``say(message, error)``, its status line; ``own(el)``: ``el``'s changes
   *   are its row's to answer, not the form's;
   * - ``blocked()``: why no start can be picked now (or null); ``onArm()``: when one is to be picked;
   * - ``newMover(place)``; ``placeName(place)``; ``startOf(text, what)``: the place typed for ``what``'s start (or a
   *   RequestError); ``start``: its field's hint and attributes, ``{ hint, attrs }``;
   * - ``fields(what, field)``: the row's other fields (``field(el, set)`` makes ``el`` set the mover through
   *   ``set(mover, value)``, a RequestError said on the status line), as ``{ named, nodes }``: the fields by name
   *   and the nodes of the row after its first line; ``fill(row, mover)`` sets them;
   * - ``firstText()`` and ``pendingText()``: the words of token 1's row and of the mover being placed.
   */
  class TokenRows {
    constructor(o) {
      Object.assign(this, o);
      this.rows = [];
      o.add.addEventListener("click", () => this.arm(o.state.movers.length));
    }

    /** Pick token ``i + 2``'s start on the board (``i`` the movers' count: a new mover); the board takes the focus. */
    arm(i) {
      const why = this.blocked();
      if (why) {
        this.say(why, true);
        return;
      }
      this.state.placing = i;
      this.show();
      this.onArm();
      this.say(`Click the ${this.where} where token ${i + 2} starts (or on the ${this.where} the arrow keys and Enter);`
        + " Escape cancels.");
      this.board.focus();
    }

    /** A click (or Enter) on ``place`` while a token's start is picked: it starts there (true: the click is taken). */
    place(place) {
      const s = this.state;
      if (s.placing < 0) return false;
      if (s.placing >= s.movers.length) s.movers.push(this.newMover(place));
      else s.movers[s.placing].at = place;
      s.placing = -1;
      this.answer();
      return true;
    }

    /** Escape while a start is picked: no longer picked (true), nothing else changes. */
    cancel() {
      if (this.state.placing < 0) return false;
      this.state.placing = -1;
      this.answer();
      return true;
    }

    /** ``el``, a field of mover ``i``'s row: a change sets the mover (``set``) and the page answers, or is refused. */
    field(el, i, set) {
      this.own(el);
      el.addEventListener("change", () => {
        try {
          set(this.state.movers[i], el.type === "checkbox" ? el.checked : el.value);
        } catch (e) {
          if (!(e instanceof EidomapCommon.RequestError)) throw e;
          this.say(e.message, true);
          return;
        }
        this.answer();
      });
      return el;
    }

    /** Mover ``i``'s row, added to the list. */
    row(i) {
      const n = i + 2, what = `token ${n}`, li = el("li", { class: "token" });
      const start = this.field(el("input", { type: "text", spellcheck: "false", ...this.start.attrs,
        "aria-label": `${what}'s start (${this.start.hint}, or Pick and click the ${this.where})` }), i, (m, v) => {
        m.at = this.startOf(v.trim(), what);
      });
      const pick = el("button", { type: "button", title: `pick ${what}'s start on the ${this.where}` }, "Pick");
      pick.addEventListener("click", () => this.arm(i));
      const remove = el("button", { type: "button", title: `remove ${what}`, "aria-label": `remove ${what}` }, "\u00d7");
      remove.addEventListener("click", () => {
        this.state.movers.splice(i, 1);
        this.answer();
        const left = this.state.movers.length;  // (the focus: this row's button again, the row before it, or Add mover)
        (left > i ? remove : left ? this.rows[left - 1].remove : this.add).focus();
      });
      const { named, nodes } = this.fields(what, (field, set) => this.field(field, i, set));
      li.append(tokenSwatch(i + 1), document.createTextNode(` ${n} `), start, pick, remove, el("br"), ...nodes);
      this.list.append(li);
      return { li, start, pick, remove, ...named };
    }

    /** The rows as the movers are now. */
    show() {
      const s = this.state, movers = s.movers;
      this.add.disabled = movers.length >= MAX_TOKENS - 1;
      while (this.rows.length < movers.length) this.rows.push(this.row(this.rows.length));
      this.rows.forEach((row, i) => {
        row.li.hidden = i >= movers.length;
        if (row.li.hidden) return;
        row.start.value = this.placeName(movers[i].at);
        this.fill(row, movers[i]);
        row.pick.setAttribute("aria-pressed", String(s.placing === i));
      });
      this.first.hidden = !movers.length && s.placing < 0;
      this.first.textContent = "";
      this.first.append(tokenSwatch(0), document.createTextNode(` 1 ${this.firstText()}`));
      this.pending.hidden = s.placing !== movers.length;
      this.pending.textContent = "";
      this.pending.append(tokenSwatch(movers.length + 1), document.createTextNode(` ${movers.length + 2}: ${this.pendingText()}`));
    }
  }

  /**
   * The race's table in ``table`` (emptied; nothing more without a race): ``caption``, a row per token of ``race``
   * -- its swatch and number, the cells ``cells(t)`` under ``heads``, its P(first) -- and the tie's row.
   */
  function raceTable(table, race, caption, heads, cells) {
    table.textContent = "";
    if (!race) return;
    const head = el("tr");
    for (const h of ["token", ...heads, "P(first)"]) head.append(el("th", {}, h));
    table.append(el("caption", {}, caption), head);
    for (const t of race.tokens) {
      const row = el("tr"), name = el("td");
      name.append(tokenSwatch(t.i), document.createTextNode(` ${t.i + 1}`));
      row.append(name, ...cells(t).map((c) => el("td", {}, c)), el("td", {}, EidomapCommon.fixed(t.first, 3)));
      table.append(row);
    }
    const tie = el("tr");
    tie.append(el("td", {}, "tie"), el("td", { colspan: String(heads.length) }, race.tieSays),
      el("td", {}, EidomapCommon.fixed(race.tie, 3)));
    table.append(tie);
  }

  return { MapView, ramp, turnColor, disc, star, el, status, legend, Preview, workerMain, PlanLink, dragFrom, download, planButtons,
    path, SvgContext, boardSVG, boardBitmap, boardTools,
    MAX_TOKENS, TOKEN_COLORS, tokenSwatch, tokenDiscs, readMovers, TokenRows, raceTable };
})();
