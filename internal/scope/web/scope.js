// streamerd scope: the page. It asks the server for a view (which traces,
// which window, how many pixel columns), draws the binary frames the
// server sends back with uPlot, and shows the counters and the source's
// status. No build step and no framework: plain DOM and one uPlot per plot.
"use strict";

const COLORS = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bc4c00", "#0598bc", "#bf3989", "#6e7781", "#4d2d00", "#116329"];
const WINDOWS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60];
const FRAME_MAGIC = 0x32464353; // "SCF2"
const MARK_KINDS = ["lost", "skipped", "silence"];
const MARK_COLORS = { lost: "#cf222e", skipped: "#bc4c00", silence: "#6e7781" };
const MARK_NAMES = { lost: "lost", skipped: "skipped", silence: "silence" };
const LEGEND_OPEN = 12; // a plot of more traces folds its legend

// S is the page's state; the browser test reads it.
const S = {
  ws: null, gen: 0, source: null, signals: [], omitted: [], limits: null,
  sel: new Map(),           // signal name -> {as, elem}: the signals plotted
  picked: false,            // the person changed the selection: the first view no longer applies
  firstView: null,          // the server's choice, null while it compares the first updates
  choosing: false,
  traces: [],               // [{sig, kind, elem, axis, unit, clock, label, color}]
  data: [],                 // per trace: {x, y, last, anchor, level, oldest, vid}
  marks: [],                // markers of the last frame: [{clock, x, n, kind}]
  plots: new Map(),         // plot key (axis|unit) -> {key, axis, unit, traces: [trace indexes], el, u, chips, marksEl}
  live: true, window: 5, from: -5, to: 0, paused: null,
  vid: 0, lastSeq: 0, frames: 0, draws: 0, drawMs: 0,
  drawAvg: 0, fps: 0,       // the mean time of a draw, and the frames per second asked for (0: the server's rate)
  cursors: {},              // axis -> {a, b, next}
  stats: null, prevStats: null, notice: null, closeReason: null,
  stale: false,             // the stream stopped: the plots are greyed
  drawPending: false,
  texts: new Map(),         // char8 signal name -> its cell in the list
};
window.scope = S;

const $ = (sel) => document.querySelector(sel);
const el = (tag, props = {}, ...kids) => {
  const e = document.createElement(tag);
  const { dataset, ...rest } = props;
  Object.assign(e, rest);
  if (dataset) Object.assign(e.dataset, dataset);
  for (const k of kids) e.append(k);
  return e;
};

// colorOf gives trace k a colour: the ten of the palette, then hues a
// golden angle apart.
function colorOf(k) {
  return k < COLORS.length ? COLORS[k] : "hsl(" + Math.round(k * 137.508) % 360 + ",65%,40%)";
}

// maxTraces is the most traces a page plots (the server's bound).
function maxTraces() { return S.limits ? S.limits.maxTraces : 256; }

// ---- connection ----

function connect() {
  const url = new URL("ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  S.ws = ws;
  ws.onopen = () => { S.closeReason = null; renderBanners(); sendView(); };
  ws.onmessage = (ev) => {
    if (typeof ev.data === "string") onText(JSON.parse(ev.data));
    else onFrame(ev.data);
  };
  ws.onclose = (ev) => {
    S.ws = null;
    // A scope that asks for a token refuses the WebSocket (401) once the
    // session cookie is gone or no longer matches: reload, which shows the
    // token form.
    fetch("status.json", { cache: "no-store" }).then((r) => { if (r.status === 401) location.reload(); }, () => {});
    const tooMany = ev.code === 1013;
    S.closeReason = (tooMany ? "" : "disconnected from the scope") + (ev.reason ? (tooMany ? "" : ": ") + ev.reason : "") +
      (tooMany ? "; trying again in 10 s" : "; reconnecting in 2 s");
    renderBanners();
    setTimeout(connect, tooMany ? 10000 : 2000);
  };
}

function send(msg) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify(msg));
}

function onText(m) {
  switch (m.type) {
    case "meta": onMeta(m); break;
    case "stats": onStats(m); break;
    case "notice": notice(m.message); break;
  }
}

// notice shows one line in the banner for ten seconds.
function notice(text) {
  S.notice = text;
  renderBanners();
  setTimeout(() => { if (S.notice === text) { S.notice = null; renderBanners(); } }, 10000);
}

// ---- signal list ----

// onMeta takes a signal list: a new one, or the same one again once the
// server has chosen the first view.
function onMeta(m) {
  S.gen = m.gen;
  S.source = m.source;
  S.signals = m.signals || [];
  S.omitted = m.omitted || [];
  S.limits = m.limits;
  S.firstView = m.firstView || null;
  S.choosing = !!m.choosing;
  $("#source").textContent = m.source && m.source.kind ? m.source.kind + " " + m.source.address : "";
  document.title = "scope: " + $("#source").textContent;
  fillWindows();
  const names = new Set(S.signals.filter((s) => !s.text).map((s) => s.name));
  for (const n of [...S.sel.keys()]) if (!names.has(n)) S.sel.delete(n);
  if (S.sel.size === 0 && !S.picked) applyFirstView();
  renderSignals();
  renderBanners();
  rebuild();
}

// applyFirstView selects the server's first view (nothing while it is
// being chosen).
function applyFirstView() {
  S.sel.clear();
  for (const f of S.firstView || []) {
    const s = S.signals[f.sig];
    if (s && !s.text && S.sel.size < maxTraces()) S.sel.set(s.name, { as: f.kind, elem: 0 });
  }
}

function defaultAs(s) {
  if (s.elements <= 1) return "trace";
  return s.trace ? "trace" : "wave";
}

// pick plots signal s or stops plotting it; it refuses, with a notice, a
// trace beyond the page's bound.
function pick(s, on) {
  S.picked = true;
  if (!on) { S.sel.delete(s.name); return true; }
  if (S.sel.has(s.name)) return true;
  if (S.sel.size >= maxTraces()) {
    notice("at most " + maxTraces() + " traces on a page: untick one to plot " + s.name);
    return false;
  }
  S.sel.set(s.name, { as: defaultAs(s), elem: 0 });
  return true;
}

// pickAll plots every signal, up to the page's bound.
function pickAll() {
  S.picked = true;
  const all = S.signals.filter((s) => !s.text);
  for (const s of all) {
    if (S.sel.size >= maxTraces()) break;
    if (!S.sel.has(s.name)) S.sel.set(s.name, { as: defaultAs(s), elem: 0 });
  }
  if (all.some((s) => !S.sel.has(s.name))) {
    notice("at most " + maxTraces() + " traces on a page: " + S.sel.size + " of " + all.length + " signals are plotted");
  }
  renderSignals();
  rebuild();
}

function renderSignals() {
  const tb = $("#signals tbody");
  tb.replaceChildren();
  S.texts = new Map();
  S.signals.forEach((s, i) => {
    const name = el("td", { className: "name", textContent: s.name });
    if (s.copyOf) name.append(el("span", { className: "note", textContent: " = " + s.copyOf, title: "the same values as " + s.copyOf + " (quantised or converted): the first view shows " + s.copyOf }));
    else if (s.counter) name.append(el("span", { className: "note", textContent: " counter", title: "rises at every update: a counter or a time stamp, left out of the first view" }));
    if (s.text) {
      // char8: its latest text (escaped by the server) instead of a plot.
      const cell = el("td", { className: "text", title: "latest text" });
      S.texts.set(s.name, cell);
      tb.append(el("tr", { dataset: { sig: i } },
        el("td", { className: "muted", textContent: "text" }),
        name,
        el("td", { textContent: s.type }),
        el("td", { textContent: s.unit || "" }),
        el("td", { textContent: s.dims }),
        el("td"),
        el("td", { className: "muted", textContent: s.time }),
        cell));
      return;
    }
    const sel = S.sel.get(s.name);
    const box = el("input", { type: "checkbox", className: "pick", checked: !!sel, title: "plot this signal (in the plot of its unit)" });
    box.onchange = () => {
      if (!pick(s, box.checked)) box.checked = false;
      renderSignals();
      rebuild();
    };
    const asCell = el("td");
    if (s.elements > 1) {
      const as = el("select", { title: "draw the array as" });
      if (s.trace) as.append(el("option", { value: "trace", textContent: "samples over time" }));
      as.append(el("option", { value: "wave", textContent: "waveform" }));
      as.append(el("option", { value: "elem", textContent: "element over time" }));
      as.value = sel ? sel.as : defaultAs(s);
      const elem = el("input", { type: "number", min: 0, max: s.elements - 1, value: sel ? sel.elem : 0, className: "elem", title: "element index" });
      elem.hidden = as.value !== "elem";
      const update = () => {
        elem.hidden = as.value !== "elem";
        const cur = S.sel.get(s.name);
        const k = Math.min(Math.max(0, Math.floor(Number(elem.value) || 0)), s.elements - 1);
        if (cur) { S.picked = true; cur.as = as.value; cur.elem = k; rebuild(); }
      };
      as.onchange = update;
      elem.onchange = update;
      asCell.append(as, elem);
    }
    const range = s.range ? "[" + fmtNum(s.range[0]) + ", " + fmtNum(s.range[1]) + "]" : "";
    tb.append(el("tr", { dataset: { sig: i } },
      el("td", {}, box),
      name,
      el("td", { textContent: s.type }),
      el("td", { textContent: s.unit || "" }),
      el("td", { textContent: s.dims }),
      el("td", { textContent: range }),
      el("td", { className: "muted", textContent: s.time }),
      asCell));
  });
  const plottable = S.signals.filter((s) => !s.text).length;
  $("#picked").textContent = S.sel.size + " of " + plottable + " plotted";
}

// ---- view: traces, plots, request ----

// rebuild makes the traces of the selection, in list order, and their
// plots: one per unit (and per waveform axis), so each has one y axis.
function rebuild() {
  S.traces = [];
  S.signals.forEach((s, sig) => {
    const sel = S.sel.get(s.name);
    if (!sel || s.text || S.traces.length >= maxTraces()) return;
    const kind = s.elements > 1 ? sel.as : "trace";
    const axis = kind === "wave" ? "wave-" + (s.waveX || "index") : "time";
    const label = kind === "elem" ? s.name + "[" + sel.elem + "]" : s.name;
    S.traces.push({ sig, kind, elem: kind === "elem" ? sel.elem : 0, axis, unit: s.unit || "", clock: s.clock, label, color: colorOf(S.traces.length) });
  });
  S.data = S.traces.map(() => null);
  S.marks = [];
  S.vid = (S.vid + 1) & 0xff;
  buildPlots();
  sendView();
}

function plotWidth() {
  return Math.max(200, Math.floor($("#plots").clientWidth || $("#view").clientWidth - 24));
}

// plotHeight shares the window's height among n plots, within bounds.
function plotHeight(n) {
  const top = $("#plots").getBoundingClientRect().top;
  return Math.round(Math.min(300, Math.max(170, (window.innerHeight - top - 8) / n - 64)));
}

function buildPlots() {
  for (const p of S.plots.values()) p.u.destroy();
  S.plots.clear();
  const host = $("#plots");
  host.replaceChildren();
  if (S.traces.length === 0) {
    host.append(el("div", { className: "empty", textContent: S.choosing && !S.picked ?
      "Choosing the first signals to plot from the first updates…" : "Tick signals to plot in the list (the plot column)." }));
    return;
  }
  const time = [], waves = [];
  S.traces.forEach((t, i) => {
    const key = t.axis + "|" + t.unit;
    if (!S.plots.has(key)) {
      S.plots.set(key, { key, axis: t.axis, unit: t.unit, traces: [] });
      (t.axis === "time" ? time : waves).push(key);
    }
    S.plots.get(key).traces.push(i);
  });
  const keys = [...time, ...waves];
  const height = plotHeight(keys.length);
  const ordered = new Map();
  for (const key of keys) {
    const p = S.plots.get(key);
    ordered.set(key, p);
    const unit = p.unit ? p.unit : "no unit";
    const title = p.axis === "time" ? unit : p.axis === "wave-time" ? "waveform · " + unit + " against time after the first sample" : "waveform · " + unit + " against element index";
    p.marksEl = el("span", { className: "marks" });
    p.chips = p.traces.map((i) => {
      const t = S.traces[i];
      const last = el("span", { className: "last", textContent: "—" });
      const level = el("span", { className: "level" });
      const chip = el("span", { className: "trace", dataset: { label: t.label } },
        el("span", { className: "sw", style: "background:" + t.color }), t.label + " ", last, " " + t.unit + " ", level);
      return { last, level, chip };
    });
    // A long legend folds away: the plot matters more than 25 names.
    const legend = p.chips.length > LEGEND_OPEN ?
      el("details", { className: "legend" }, el("summary", { textContent: p.chips.length + " traces" }), ...p.chips.map((c) => c.chip)) :
      el("div", { className: "legend" }, ...p.chips.map((c) => c.chip));
    p.el = el("div", { className: "plot", dataset: { key } }, el("h2", {}, el("span", { textContent: title }), p.marksEl), legend);
    host.append(p.el);
    p.u = makePlot(p, height);
  }
  S.plots = ordered;
}

// makePlot draws a plot with uPlot in its mode 2: each trace has its own
// x values, so traces are never joined on a common x (which grows with
// their number times their points).
function makePlot(p, height) {
  const time = p.axis === "time";
  const fmtX = time || p.axis === "wave-time" ? fmtTime : (v) => String(v);
  const series = [{}];
  for (const i of p.traces) {
    const t = S.traces[i];
    series.push({ label: t.label, stroke: t.color, width: 1, points: { show: false },
      facets: [{ scale: "x", auto: !time }, { scale: "y", auto: true }] });
  }
  const opts = {
    mode: 2, width: plotWidth(), height, series, legend: { show: false },
    scales: { x: time ? { time: false, auto: false, range: () => [S.from, S.to] } : { time: false, auto: true }, y: { auto: true, range: yRange } },
    axes: [
      { values: (u, splits) => splits.map(fmtX) },
      { values: (u, splits) => splits.map((v) => fmtNum(v)), size: axisSize, space: 20, label: p.unit || undefined, labelSize: p.unit ? 18 : 0 },
    ],
    cursor: { drag: { x: true, y: false, setScale: !time }, points: { show: false } },
    hooks: {
      draw: [(u) => { if (time) drawMarks(u, p); drawCursors(u, p.axis); }],
      setSelect: [(u) => { if (time) onSelect(u); }],
    },
  };
  const u = new uPlot(opts, emptyData(p.traces.length), p.el);
  // Hovering: the legend gives each trace's value under the pointer.
  u.over.addEventListener("mousemove", (e) => { p.hoverX = u.posToVal(e.offsetX, "x"); renderLegend(p); });
  u.over.addEventListener("mouseleave", () => { p.hoverX = null; renderLegend(p); });
  let down = null;
  u.over.addEventListener("mousedown", (e) => { down = [e.clientX, e.clientY]; });
  u.over.addEventListener("click", (e) => {
    if (down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 3) return;
    setCursor(p.axis, u.posToVal(e.offsetX, "x"));
  });
  if (time) u.over.addEventListener("wheel", (e) => {
    if (S.live) return;
    e.preventDefault();
    zoomAt(u.posToVal(e.offsetX, "x"), e.deltaY > 0 ? 1.25 : 0.8);
  }, { passive: false });
  return u;
}

// yRange fits the values with a 5% margin, and a flat line in the middle.
function yRange(u, min, max) {
  if (min == null || max == null || !Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (min === max) {
    const pad = Math.abs(min) > 0 ? Math.abs(min) * 0.01 : 1;
    return [min - pad, max + pad];
  }
  const pad = (max - min) * 0.05;
  return [min - pad, max + pad];
}

// axisSize makes a y axis as wide as its longest label.
function axisSize(u, values) {
  if (!values) return 50;
  return 24 + 8 * Math.max(3, ...values.map((v) => String(v).length));
}

function emptyData(n) {
  const d = [null];
  for (let i = 0; i < n; i++) d.push([[], []]);
  return d;
}

function sendView() {
  if (!S.gen) return;
  const cols = Math.min(Math.max(16, plotWidth()), S.limits ? S.limits.maxColumns : 4096);
  send({
    type: "view", gen: S.gen, vid: S.vid, live: S.live, from: S.from, to: S.to, cols, fps: S.fps,
    traces: S.traces.map((t) => t.kind === "elem" ? { sig: t.sig, kind: t.kind, elem: t.elem } : { sig: t.sig, kind: t.kind }),
  });
}

// ---- frames ----

function onFrame(buf) {
  const dv = new DataView(buf);
  if (buf.byteLength < 32 || dv.getUint32(0, true) !== FRAME_MAGIC) return;
  const seq = dv.getUint32(4, true), gen = dv.getUint32(8, true), n = dv.getUint16(12, true), vid = dv.getUint8(15);
  send({ type: "ack", seq });
  S.lastSeq = seq;
  if (gen !== (S.gen >>> 0) || vid !== S.vid) return; // made for a view this page has left
  S.frames++;
  let off = 32;
  for (let k = 0; k < n; k++) {
    if (off + 32 > buf.byteLength) return;
    const idx = dv.getUint16(off, true), level = dv.getUint8(off + 3), np = dv.getUint32(off + 4, true);
    const anchor = dv.getFloat64(off + 8, true), last = dv.getFloat64(off + 16, true), oldest = dv.getFloat64(off + 24, true);
    const xOff = off + 32, yOff = xOff + 4 * (np + (np & 1));
    if (yOff + 8 * np > buf.byteLength) return;
    if (idx < S.data.length) {
      S.data[idx] = { x: new Float32Array(buf, xOff, np), y: new Float64Array(buf, yOff, np), last, anchor, level, oldest, vid };
    }
    off = yOff + 8 * np;
  }
  if (off + 8 > buf.byteLength) return;
  const nm = dv.getUint32(off, true);
  off += 8;
  if (off + 16 * nm > buf.byteLength) return;
  const marks = [];
  for (let k = 0; k < nm; k++, off += 16) {
    marks.push({ x: dv.getFloat64(off, true), n: dv.getUint32(off + 8, true), clock: dv.getUint16(off + 12, true), kind: MARK_KINDS[dv.getUint8(off + 14)] || "lost" });
  }
  S.marks = marks;
  scheduleDraw();
}

function scheduleDraw() {
  if (S.drawPending) return;
  S.drawPending = true;
  requestAnimationFrame(() => {
    S.drawPending = false;
    const t0 = performance.now();
    draw();
    // uPlot paints in the microtasks setData queued, which run before
    // this one: the draws and their time are what the page can do.
    queueMicrotask(() => { const ms = performance.now() - t0; S.draws++; S.drawMs += ms; paced(ms); });
  });
}

// paced keeps drawing to about half the page's time: a page whose draws
// take long (many traces, a slow machine) asks the server for fewer
// frames, so that it still answers the person.
function paced(ms) {
  S.drawAvg = S.drawAvg ? 0.8 * S.drawAvg + 0.2 * ms : ms;
  const want = S.drawAvg > 500 / 30 ? Math.max(1, Math.floor(500 / S.drawAvg)) : 0; // 0: the server's rate
  if (want !== S.fps && (want === 0 || S.fps === 0 || Math.abs(want - S.fps) / S.fps >= 0.25)) {
    S.fps = want;
    sendView();
  }
}

function draw() {
  for (const p of S.plots.values()) {
    p.u.setData(plotData(p));
    if (p.axis === "time") renderMarkSums(p);
  }
  renderLegends();
  renderReadout();
}

// plotData gives a plot's traces as uPlot's mode 2 wants them, each with
// its own x; a NaN or an infinity becomes null, a break in the line.
function plotData(p) {
  const d = [null];
  for (const i of p.traces) {
    const t = S.data[i];
    if (!t) { d.push([[], []]); continue; }
    const y = new Array(t.y.length);
    for (let k = 0; k < y.length; k++) y[k] = Number.isFinite(t.y[k]) ? t.y[k] : null;
    d.push([t.x, y]);
  }
  return d;
}

function renderLegends() {
  for (const p of S.plots.values()) renderLegend(p);
}

// renderLegend gives each trace of plot p its last value, or its value
// under the pointer while it hovers the plot.
function renderLegend(p) {
  const fmtX = p.axis === "wave-index" ? (v) => "k " + fmtNum(v) : fmtTime;
  p.traces.forEach((i, k) => {
    const d = S.data[i], c = p.chips[k];
    if (p.hoverX != null) {
      c.last.textContent = fmtVal(valueAt(i, p.hoverX));
      c.level.textContent = "at " + fmtX(p.hoverX);
      return;
    }
    c.last.textContent = d && Number.isFinite(d.last) ? fmtNum(d.last) : "—";
    c.level.textContent = d ? (d.level === 0 ? "samples" : "min/max, level " + d.level) : "";
  });
}

// ---- markers ----

// plotClock is the clock whose markers a time plot shows: its first
// trace's (a lost update marks every clock at once).
function plotClock(p) { return S.traces[p.traces[0]].clock; }

// drawMarks puts the markers in the plot's window on its time axis:
// lost updates and skipped cycles as triangles, silences as a dashed line.
function drawMarks(u, p) {
  const clock = plotClock(p), ctx = u.ctx, r = devicePixelRatio;
  const left = u.bbox.left, right = left + u.bbox.width, bottom = u.bbox.top + u.bbox.height;
  ctx.save();
  for (const m of S.marks) {
    if (m.clock !== clock) continue;
    const x = Math.round(u.valToPos(m.x, "x", true));
    if (x < left - 1 || x > right + 1) continue;
    ctx.fillStyle = ctx.strokeStyle = MARK_COLORS[m.kind];
    if (m.kind === "silence") {
      ctx.setLineDash([3 * r, 3 * r]);
      ctx.lineWidth = r;
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, bottom);
      ctx.stroke();
      continue;
    }
    const base = m.kind === "lost" ? bottom : bottom - 7 * r;
    ctx.beginPath();
    ctx.moveTo(x, base - 6 * r);
    ctx.lineTo(x - 3.5 * r, base);
    ctx.lineTo(x + 3.5 * r, base);
    ctx.closePath();
    ctx.fill();
  }
  ctx.restore();
}

// markSums adds up a time plot's markers inside the window.
function markSums(p) {
  const clock = plotClock(p), sums = { lost: 0, skipped: 0, silence: 0 };
  for (const m of S.marks) if (m.clock === clock && m.x >= S.from && m.x <= S.to) sums[m.kind] += m.n;
  return sums;
}

function renderMarkSums(p) {
  const sums = markSums(p);
  const kids = [];
  for (const k of MARK_KINDS) {
    if (!sums[k]) continue;
    kids.push(el("span", { className: "mark " + k, textContent: (k === "silence" ? "┊ " : "▲ ") + MARK_NAMES[k] + " " + sums[k] }));
  }
  const text = kids.map((k) => k.textContent).join(" ");
  if (p.marksEl.dataset.text !== text) {
    p.marksEl.dataset.text = text;
    p.marksEl.replaceChildren(...kids);
  }
}

// ---- pause, zoom, pan ----

function setLive(live) {
  if (live === S.live) return;
  S.live = live;
  if (live) { S.from = -S.window; S.to = 0; S.paused = null; }
  else S.paused = [S.from, S.to];
  $("#pause").textContent = live ? "pause" : "resume";
  $("#pause").classList.toggle("paused", !live);
  $("#frozen").hidden = live;
  S.vid = (S.vid + 1) & 0xff;
  sendView();
}

function setWindow(from, to) {
  const maxW = S.limits ? S.limits.maxWindow : 60;
  if (!(to - from > 1e-7) || to - from > 2 * maxW) return;
  S.from = from; S.to = to;
  S.vid = (S.vid + 1) & 0xff;
  sendView();
  for (const p of S.plots.values()) if (p.axis === "time") p.u.setScale("x", { min: from, max: to });
}

function onSelect(u) {
  const w = u.select.width;
  if (w < 4) return;
  const a = u.posToVal(u.select.left, "x"), b = u.posToVal(u.select.left + w, "x");
  u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
  setLive(false);
  setWindow(a, b);
}

function zoomAt(center, factor) {
  setWindow(center - (center - S.from) * factor, center + (S.to - center) * factor);
}

function pan(fraction) {
  const d = (S.to - S.from) * fraction;
  setWindow(S.from + d, S.to + d);
}

// ---- cursors ----

function setCursor(axis, x) {
  const c = S.cursors[axis] || (S.cursors[axis] = { a: null, b: null, next: "a" });
  c[c.next] = x;
  c.next = c.next === "a" ? "b" : "a";
  for (const p of S.plots.values()) if (p.axis === axis) p.u.redraw(false);
  renderReadout();
}

function drawCursors(u, axis) {
  const c = S.cursors[axis];
  if (!c) return;
  const ctx = u.ctx;
  ctx.save();
  ctx.font = 12 * devicePixelRatio + "px system-ui";
  for (const name of ["a", "b"]) {
    if (c[name] == null) continue;
    const x = Math.round(u.valToPos(c[name], "x", true));
    if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
    ctx.strokeStyle = name === "a" ? "#444" : "#999";
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.moveTo(x, u.bbox.top);
    ctx.lineTo(x, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.fillStyle = ctx.strokeStyle;
    ctx.fillText(name.toUpperCase(), x + 3, u.bbox.top + 12 * devicePixelRatio);
  }
  ctx.restore();
}

// valueAt returns trace i's value at x: the nearest point's.
function valueAt(i, x) {
  const d = S.data[i];
  if (!d || d.x.length === 0) return null;
  let lo = 0, hi = d.x.length - 1;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (d.x[m] < x) lo = m + 1; else hi = m;
  }
  if (lo > 0 && Math.abs(d.x[lo - 1] - x) < Math.abs(d.x[lo] - x)) lo--;
  return d.y[lo];
}

function renderReadout() {
  const host = $("#readout");
  host.replaceChildren();
  for (const [axis, c] of Object.entries(S.cursors)) {
    if (c.a == null && c.b == null) continue;
    const fmtX = axis === "wave-index" ? (v) => fmtNum(v) : fmtTime;
    const tb = el("tbody");
    const head = el("tr", {}, el("th", { textContent: axis === "time" ? "cursors" : "waveform cursors" }),
      el("th", { textContent: "A " + (c.a == null ? "—" : fmtX(c.a)) }),
      el("th", { textContent: "B " + (c.b == null ? "—" : fmtX(c.b)) }),
      el("th", { textContent: c.a != null && c.b != null ? "B−A " + fmtX(c.b - c.a) + (axis !== "wave-index" && c.b !== c.a ? " (" + fmtNum(1 / Math.abs(c.b - c.a)) + " Hz)" : "") : "" }));
    tb.append(head);
    S.traces.forEach((t, i) => {
      if (t.axis !== axis) return;
      const va = c.a == null ? null : valueAt(i, c.a), vb = c.b == null ? null : valueAt(i, c.b);
      tb.append(el("tr", {}, el("td", { textContent: t.label }), el("td", { textContent: fmtVal(va) }), el("td", { textContent: fmtVal(vb) }),
        el("td", { textContent: va != null && vb != null ? fmtNum(vb - va) : "" })));
    });
    host.append(el("table", {}, tb));
  }
}

// ---- CSV ----

// csvText is the visible window of every plot as CSV: each plot's traces
// joined on x (for time, seconds relative to each trace's anchor, which a
// comment line gives), the time plots first.
function csvText() {
  const lines = ["# streamerd scope: " + $("#source").textContent + ", window " + S.from + " to " + S.to + " s" + (S.live ? " (live)" : " (paused)")];
  for (const p of S.plots.values()) {
    lines.push("# plot " + (p.unit || "no unit") + " (" + p.axis + ")");
    for (const i of p.traces) {
      const d = S.data[i];
      if (d) lines.push("# " + S.traces[i].label + ": anchor " + d.anchor + " s, " + (d.level === 0 ? "samples" : "min/max per point, level " + d.level));
    }
    const tables = plotData(p).slice(1).map(([x, y]) => [Array.from(x), y]);
    const data = tables.length === 1 ? tables[0] : uPlot.join(tables);
    lines.push([p.axis === "wave-index" ? "k" : p.axis === "wave-time" ? "x_s" : "t_s", ...p.traces.map((i) => csvField(S.traces[i].label))].join(","));
    for (let k = 0; k < data[0].length; k++) {
      const x = data[0][k];
      if (p.axis === "time" && (x < S.from || x > S.to)) continue;
      const row = [x];
      for (let s = 1; s < data.length; s++) row.push(data[s][k] == null ? "" : data[s][k]);
      lines.push(row.join(","));
    }
    lines.push("");
  }
  return lines.join("\n");
}

// downloadCSV saves csvText as a file.
function downloadCSV() {
  const blob = new Blob([csvText()], { type: "text/csv" });
  const a = el("a", { href: URL.createObjectURL(blob), download: "scope-" + new Date().toISOString().replace(/[:.]/g, "-") + ".csv" });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

function csvField(s) {
  return /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

// ---- counters and banners ----

function onStats(m) {
  S.prevStats = S.stats;
  S.stats = m;
  const st = m.status || {};
  const state = $("#state");
  state.textContent = st.state || "";
  state.className = "state " + (st.state || "");
  const c = m.counters || {};
  const p = (S.prevStats && S.prevStats.counters) || c;
  const moved = (k) => (c[k] || 0) > (p[k] || 0);
  const host = $("#counters");
  host.replaceChildren();
  const item = (id, label, value, bad) => host.append(el("span", { id: "c-" + id, className: bad ? "moved" : "" }, label + " ", el("b", { textContent: value })));
  item("rate", "updates/s", fmtNum(m.updatesPerS, 4));
  item("mbps", "MB/s", fmtNum(m.mbPerS, 3));
  item("lost", "lost", c.lost || 0, moved("lost"));
  item("skipped", "skipped", c.skipped || 0, moved("skipped"));
  item("stale", "stale", c.stale || 0, moved("stale"));
  item("incomplete", "incomplete", c.incomplete || 0, moved("incomplete"));
  item("silences", "silences", c.silences || 0, moved("silences"));
  item("bad", "refused", c.bad || 0, moved("bad"));
  if (c.link) item("link", "link", c.link, c.link !== "ok");
  item("updates", "updates", c.updates || 0);
  item("viewers", "viewers", m.viewers);
  item("history", "history", fmtBytes(m.historyBytes));
  for (const t of m.texts || []) {
    const cell = S.texts.get(t.name);
    if (cell) cell.textContent = t.text;
  }
  const extra = $("#extra tbody");
  extra.replaceChildren();
  for (const x of c.extra || []) extra.append(el("tr", {}, el("td", { textContent: x.name }), el("td", { textContent: x.value })));
  // A stream that had data and has none now is greyed, whatever the
  // plots' last frames show.
  S.stale = m.lastUpdateS >= 0 && st.state !== "receiving" && !(st.state === "warning" && m.lastUpdateS < 1);
  document.body.classList.toggle("stale", S.stale);
  renderBanners();
}

function renderBanners() {
  const host = $("#banners");
  host.replaceChildren();
  const add = (cls, text) => host.append(el("div", { className: "banner " + cls, textContent: text }));
  if (S.closeReason) add("error", S.closeReason);
  const st = S.stats && S.stats.status;
  if (S.stale) add("silent stale", "no data for " + fmtAge(S.stats.lastUpdateS) + (st.message ? " · " + st.message : ""));
  else if (st && st.message && st.state !== "receiving") add(st.state === "waiting" ? "info" : st.state, st.message);
  if (S.omitted.length) add("warning", S.omitted.length + " signals are not shown (the scope keeps the first " + S.signals.length + "): " + S.omitted.slice(0, 5).join(", ") + (S.omitted.length > 5 ? ", …" : ""));
  if (S.notice) add("info", S.notice);
}

// ---- formatting ----

function fmtNum(v, digits = 6) {
  if (v == null || Number.isNaN(v)) return "—";
  if (!Number.isFinite(v)) return v > 0 ? "+∞" : "−∞";
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-4 || a >= 1e9)) return v.toExponential(digits - 1);
  return String(Number(v.toPrecision(digits)));
}

function fmtTime(v) {
  if (v == null || !Number.isFinite(v)) return "—";
  const a = Math.abs(v);
  if (a === 0) return "0 s";
  if (a < 1e-3) return fmtNum(v * 1e6, 4) + " µs";
  if (a < 1) return fmtNum(v * 1e3, 4) + " ms";
  return fmtNum(v, 5) + " s";
}

// fmtAge says how long ago, in whole seconds (minutes past a minute).
function fmtAge(s) {
  const n = Math.floor(s);
  return n < 60 ? n + " s" : Math.floor(n / 60) + " min " + (n % 60) + " s";
}

function fmtVal(v) { return v == null ? "—" : fmtNum(v); }

function fmtBytes(n) {
  if (!(n > 0)) return "0 B";
  const u = ["B", "KiB", "MiB", "GiB"];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return fmtNum(n, 3) + " " + u[i];
}

function fillWindows() {
  const sel = $("#window");
  if (sel.options.length) return;
  const lo = S.limits ? S.limits.minWindow : 0.1, hi = S.limits ? S.limits.maxWindow : 60;
  for (const w of WINDOWS) if (w >= lo - 1e-9 && w <= hi + 1e-9) sel.append(el("option", { value: w, textContent: fmtTime(w) }));
  sel.value = String(S.window);
  sel.onchange = () => {
    S.window = Number(sel.value);
    if (S.live) { S.from = -S.window; S.to = 0; S.vid = (S.vid + 1) & 0xff; sendView(); }
  };
}

// ---- start ----

$("#pause").onclick = () => setLive(!S.live);
$("#unzoom").onclick = () => { if (S.paused) setWindow(S.paused[0], S.paused[1]); };
$("#panleft").onclick = () => pan(-0.5);
$("#panright").onclick = () => pan(0.5);
$("#zoomin").onclick = () => zoomAt((S.from + S.to) / 2, 0.5);
$("#zoomout").onclick = () => zoomAt((S.from + S.to) / 2, 2);
$("#clearcursors").onclick = () => { S.cursors = {}; for (const p of S.plots.values()) p.u.redraw(false); renderReadout(); };
$("#csv").onclick = downloadCSV;
$("#pickall").onclick = pickAll;
$("#picknone").onclick = () => { S.picked = true; S.sel.clear(); renderSignals(); rebuild(); };
$("#pickfirst").onclick = () => { S.picked = false; applyFirstView(); renderSignals(); rebuild(); };
document.addEventListener("keydown", (e) => {
  if (e.key === " " && e.target === document.body) { e.preventDefault(); setLive(!S.live); }
});
let resizeTimer = 0;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    const height = plotHeight(S.plots.size);
    for (const p of S.plots.values()) p.u.setSize({ width: plotWidth(), height });
    sendView();
  }, 100);
});
connect();
