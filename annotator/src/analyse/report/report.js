// Revy report page: the ranked proposals first, then the object call graph (SVG; classes by
// default on big runs, expandable into instances), a per-thread timeline, inspector,
// search, filtering, highlighting, animation and sortable statistics. Vanilla JS, no network
// access: everything it shows is in #revy-data.
(function () {
  'use strict';
  window.__revyErrors = window.__revyErrors || [];
  window.addEventListener('error', function (e) { window.__revyErrors.push(String(e.message)); });
  const T0 = performance.now();
  // Script time of the drawing (ms per draw: graph canvas, timeline), for the browser test's
  // frame figures: rings of the last 512 (`n` counts every draw, `since(m)` those after the m-th).
  const ring = () => {
    const b = new Float64Array(512), r = { n: 0 };
    r.push = (x) => { b[r.n++ % b.length] = x; };
    r.since = (m) => { const out = []; for (let k = Math.max(m, r.n - b.length); k < r.n; k++) out.push(b[k % b.length]); return out; };
    return r;
  };
  const perf = { graph: ring(), timeline: ring() };

  const D = JSON.parse(document.getElementById('revy-data').textContent);
  const NS = 'http://www.w3.org/2000/svg'; // the SVG namespace name, not a fetch
  const UNIT = D.trace.unit;
  const NS_PER = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 }[UNIT] || 1;
  const COLOURS = { over60: '#d62728', over30: '#1f5fbf', over10: '#2ca02c', rest: '#222222' };
  const BAND_TEXT = { over60: '> 60 %', over30: '> 30 %', over10: '> 10 %', rest: '≤ 10 %' };
  // Colour by value: a perceptual sequential scale (light yellow → dark red, after
  // ColorBrewer's YlOrRd) on the share of busy time a node works, linear from 0 to the
  // largest node drawn, so near-equal nodes get near-equal colours.
  const SCALE = ['#ffeda0', '#fed976', '#feb24c', '#fd8d3c', '#fc4e2a', '#e31a1c', '#bd0026', '#800026'];
  const hex = (c) => [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16));
  const SCALE_RGB = SCALE.map(hex);
  const scaleColour = (t) => {
    const x = Math.max(0, Math.min(1, t)) * (SCALE.length - 1), k = Math.min(SCALE.length - 2, Math.floor(x)), f = x - k;
    const a = SCALE_RGB[k], b = SCALE_RGB[k + 1];
    return 'rgb(' + a.map((v, j) => Math.round(v + (b[j] - v) * f)).join(',') + ')';
  };
  const EDGE_COLOUR = '#78909c';
  // Highlight halos: rings this wide around a node or an edge (the canvas's in screen pixels).
  const HALO = 2.5;
  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs, text) => {
    const e = document.createElement(tag);
    if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const sv = (tag, attrs) => {
    const e = document.createElementNS(NS, tag);
    if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  };
  // A share; under 0.05 % with two significant digits (a 0.00 % for something that took time says nothing).
  const pct = (x) => (x > 0 && x < 0.0005 ? (x * 100).toPrecision(2) : (x * 100).toFixed(x >= 0.1 ? 1 : 2)) + ' %';
  // Cached formatters: toLocaleString builds one per call, which is slow on big tables.
  const NF = [0, 1, 2].map((d) => new Intl.NumberFormat('en', { minimumFractionDigits: d, maximumFractionDigits: d }));
  const num = (x) => (x === null || x === undefined) ? '' : (Number.isInteger(x) ? NF[0].format(x) : x.toFixed(2));
  // A time in trace units, auto-scaled: "61.6 ms", "1,234 s", "850 ns".
  const fmtT = (t) => {
    if (t === null || t === undefined) return '';
    const ns = t * NS_PER;
    const [v, u] = ns >= 1e9 ? [ns / 1e9, 's'] : ns >= 1e6 ? [ns / 1e6, 'ms'] : ns >= 1e3 ? [ns / 1e3, 'µs'] : [ns, 'ns'];
    const digits = u === 'ns' || v >= 100 ? 0 : v >= 10 ? 1 : 2;
    return NF[digits].format(v) + ' ' + u;
  };

  // Raw times in the analysis's sentences ("aggregate 1917107493 ns") in human units.
  const UNIT_NS = { ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, s: 1e9 };
  const toUnits = (v, u) => { const n = Number(v.replace(/,/g, '')); return Number.isFinite(n) ? fmtT(n * UNIT_NS[u] / NS_PER) : v + ' ' + u; };
  const human = (text) => String(text)
    .replace(/\b(\d[\d,]*(?:\.\d+)?) of (\d[\d,]*(?:\.\d+)?) ?(ns|us|µs|ms)\b/g, (all, a, b, u) => toUnits(a, u) + ' of ' + toUnits(b, u))
    .replace(/\b(\d[\d,]*(?:\.\d+)?) ?(ns|us|µs|ms)\b/g, (all, v, u) => toUnits(v, u))
    .replace(/\bstd-dev (\d+(?:\.\d+)?)(?![\d.]| ?(?:ns|µs|us|ms|s)\b)/g, (all, v) => 'std-dev ' + fmtT(Number(v)));

  // ---------- header, run line (first: the answer needs only the data, not the model) ----------
  const span = D.span[1] > D.span[0] ? D.span[1] - D.span[0] : 0;
  (function header() {
    const t = D.totals;
    const name = D.trace.path.split('/').pop();
    const s = $('summary');
    s.appendChild(el('span', null, name));
    for (const w of D.trace.warnings) $('warnings').appendChild(el('div', null, 'warning: ' + w));
    for (const u of document.querySelectorAll('.unit')) u.textContent = UNIT;
    const probeKey = Object.keys(D.trace.header || {}).find((k) => /probe/i.test(k));
    const probe = human(t.probe_note || (probeKey ? 'probe cost ' + D.trace.header[probeKey] + (/ns/.test(probeKey) ? ' ns' : '') + ' per call' : 'probe cost not recorded in the trace'));
    const line = $('run-line');
    // One run span (`revy analyze`'s); busy is summed over threads, so at most span × threads.
    const runSpan = t.run_span !== undefined ? t.run_span : span;
    const waiting = t.waiting_time || 0;
    const parts = ['span ' + fmtT(runSpan), t.threads + ' thread' + (t.threads === 1 ? '' : 's'),
      NF[0].format(t.messages) + ' messages', NF[0].format(t.instances) + ' instances',
      'busy ' + fmtT(t.total_time) + (waiting ? ' (of it ' + fmtT(waiting) + ' waiting off the CPU, shown apart from work)' : ''), probe];
    line.textContent = parts.join(' · ');
    line.dataset.span = runSpan; line.dataset.busy = t.total_time; line.dataset.waiting = waiting;
    const flags = [];
    if (t.total_time > runSpan * Math.max(1, t.threads)) flags.push('busy ' + fmtT(t.total_time) + ' exceeds span × threads (' + fmtT(runSpan * t.threads) + '): the threads\' clocks disagree');
    const pr = t.probe || {};
    const probeNs = pr.used_ns || pr.header_ns || 0;
    if (pr.capped) flags.push('the probe cost in the trace header (' + fmtT((pr.header_ns || 0) / NS_PER) + ') is more than the shortest message: it was capped, calibrate again');
    else if (probeNs > 5000) flags.push('a probe cost of ' + fmtT(probeNs / NS_PER) + ' per message is implausible (expected well under 1 µs): calibrate again');
    else if (probeNs * t.recorded_messages / NS_PER > 0.5 * t.total_time && t.total_time > 0) flags.push('the probe cost makes up over half the busy time: times are mostly instrumentation');
    for (const f of flags) $('warnings').appendChild(el('div', { class: 'flag' }, '⚠ ' + f));
    line.dataset.flags = flags.length;
    $('foot').textContent = 'Revy ' + D.version + ' — ' + D.trace.path + ' (' + D.trace.form + ', ' + D.trace.events.toLocaleString('en') + ' events, unit ' + UNIT + ')';
  })();

  // ---------- the answer (the hints of `revy analyze`, in rank order) ----------
  const hintText = (h) => human(h.text || ((h.subject ? h.subject + ': ' : '') + (h.reason || '')));
  const speedOf = (h) => h.numbers && h.numbers.predicted_speedup;
  function hintItem(h, k) {
    const li = el('li', { 'data-kind': h.kind, 'data-rank': k + 1, class: 'hint', tabindex: '0', title: 'show its objects in the graph' });
    const sp = speedOf(h);
    // Green only for a change that pays; ×1.00 and losses get a neutral badge.
    if (sp) li.appendChild(el('span', { class: 'speedup' + (h.kind === 'proposal' ? ' pays' : ' neutral'), 'data-speedup': sp }, '×' + Number(sp).toFixed(2)));
    li.appendChild(el('span', { class: 'kind' }, h.kind));
    li.appendChild(document.createTextNode(' '));
    li.appendChild(el('span', { class: 'text' }, hintText(h)));
    li.addEventListener('click', () => focusHint(h));
    li.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') focusHint(h); });
    return li;
  }
  // The answer box: the ranking's entries first (`revy report` ranks the run's objects once:
  // proposals that pay, then verdicts and classes by share, each with its cause), then the
  // observations that hold at least 0.5 % of the busy time (no 0.0 % filler: a line about
  // instances below the threshold holds less by definition).
  const shareOf = (h) => h.numbers && (h.numbers.level !== undefined ? h.numbers.level : h.numbers.share !== undefined ? h.numbers.share : h.numbers.max_level);
  const answerHints = () => D.hints.filter((h) => h.kind === 'proposal' || h.kind === 'no-gain' || !(shareOf(h) < 0.005));
  const RANKING = D.ranking || [];
  // A ranked entry as a line: its verdict's hint, or a ×1.00 line with its cause.
  const rankedHint = (r) => r.hint !== null && r.hint !== undefined ? D.hints[r.hint] : {
    kind: 'no-gain', subject: r.subject, text: r.text, class: r.kind === 'class' ? r.key : null,
    instance: r.kind === 'instance' ? Number(r.key) : null, method: r.kind === 'method' ? Number(r.key) : null,
    numbers: { predicted_speedup: r.speedup, level: r.share } };
  (function proposals() {
    const box = $('proposals');
    const pays = D.hints.some((h) => h.kind === 'proposal');
    $('answer').dataset.pays = pays ? '1' : '0';
    $('answer-title').textContent = pays ? 'What to parallelise' : D.hints.length || RANKING.length ? 'Nothing pays: why' : 'What to parallelise';
    // The top three of the ranking (all that pay), then the other verdicts and observations.
    const top = RANKING.filter((r, k) => k < 3 || r.pays);
    const used = new Set(top.map((r) => r.hint).filter((k) => k !== null && k !== undefined));
    const lines = top.map((r) => Object.assign({ ranked: r }, rankedHint(r)))
      .concat(answerHints().filter((h) => !used.has(D.hints.indexOf(h))));
    if (!lines.length) $('answer-more').textContent = 'No proposals: no object or method stands out at the threshold.';
    lines.slice(0, 6).forEach((h, k) => {
      const li = hintItem(h, k);
      if (h.ranked) { li.dataset.rankKind = h.ranked.kind; li.dataset.rankKey = h.ranked.key; }
      box.appendChild(li);
    });
    if (lines.length > 6) $('answer-more').textContent = '… and ' + (lines.length - 6) + ' more under Hints and in the tables below';
    const all = $('hints');
    if (!D.hints.length) { all.appendChild(el('p', { class: 'muted' }, 'No hints: nothing is above the threshold.')); return; }
    const ol = el('ol');
    D.hints.forEach((h, k) => ol.appendChild(hintItem(h, k)));
    all.appendChild(ol);
  })();
  const firstPaint = performance.now() - T0;
  // Since navigation start: the answer is in the DOM (painted with the next frame).
  const answerAt = performance.now();

  // ---------- model ----------
  // Thread roots are named after their thread (not `root@tid`) everywhere on the page.
  const threadName = new Map(D.threads.map((t) => [t.tid, t.name || 'thread ' + t.tid]));
  for (const i of D.instances) if (i.kind === 'root' && threadName.has(i.tid)) i.label = threadName.get(i.tid);
  const inst = new Map();
  for (const i of D.instances) inst.set(i.id, i);
  const label = (id) => (inst.get(id) || { label: '#' + id }).label;
  const method = (m) => D.methods[m] || { class: '?', method: '?', signature: '' };
  // A method's parameters as people read them, `(const K&, F&&)` (the data keeps the notation).
  const shownSig = (m) => (D.signatures && D.signatures[m.id]) || m.signature;
  const methodName = (m) => { const x = method(m); return x.class + '.' + x.method; };

  // Links: sender→receiver→method aggregates; edges: per pair.
  const links = D.links.map((a) => ({ s: a[0], r: a[1], m: a[2], calls: a[3], net: a[4], agg: a[5], bytes: a[6], key: a[0] + '>' + a[1] + ':' + a[2] }));
  const edges = D.edges.map((e) => Object.assign({ key: e.sender + '>' + e.receiver, links: [], other: e.calls }, e));
  const edgeByKey = new Map(edges.map((e) => [e.key, e]));
  for (const l of links) {
    const e = edgeByKey.get(l.s + '>' + l.r);
    if (e) { e.links.push(l); e.other -= l.calls; }
  }
  const nodes = D.instances.map((i) => ({ id: i.id, key: String(i.id), i: i, x: 0, y: 0, r: 7 + 16 * Math.sqrt(i.level), out: [], inn: [], visible: true }));
  const nodeById = new Map(nodes.map((n) => [n.id, n]));
  for (const e of edges) {
    e.sn = nodeById.get(e.sender); e.rn = nodeById.get(e.receiver);
    if (e.sn) e.sn.out.push(e);
    if (e.rn && e.rn !== e.sn) e.rn.inn.push(e);
  }
  const root = nodeById.get(D.main_root) || nodes[0];

  // Ranks by activity (1 = most active): instances (roots excluded) and edges.
  const instRank = new Map();
  D.instances.filter((i) => i.kind !== 'root').slice().sort((a, b) => b.active_time - a.active_time || a.id - b.id)
    .forEach((i, k) => instRank.set(i.id, k + 1));
  const edgeRank = new Map();
  edges.slice().sort((a, b) => b.net_time - a.net_time || a.sender - b.sender || a.receiver - b.receiver)
    .forEach((e, k) => edgeRank.set(e.key, k + 1));

  // Class groups: one node per class of the run standing for all its instances. Their
  // figures are the analysis's whole-run class rows (never sums over the drawn instances,
  // which on a big run are a small sample); `members` are the drawn ones.
  const TOTAL = Math.max(1, D.totals.total_time);
  const groups = new Map();
  for (const c of D.classes) {
    const level = c.active_time / TOTAL;
    groups.set(c.class, { key: 'c:' + c.class, group: true, cls: c.class, row: c, members: [], x: 0, y: 0, visible: false,
      i: { id: 'c:' + c.class, label: c.class + ' (' + NF[0].format(c.instances) + ')', class: c.class, kind: 'class', oid: null,
        active_time: c.active_time, level, instances: c.instances, received: c.messages, sent: null, neighbours: null, size: null,
        band: level > 0.6 ? 'over60' : level > 0.3 ? 'over30' : level > 0.1 ? 'over10' : 'rest' } });
  }
  for (const n of nodes) {
    const g = n.i.kind !== 'root' && n.i.class && groups.get(n.i.class);
    if (g) g.members.push(n);
  }
  for (const g of groups.values()) g.r = 9 + 18 * Math.sqrt(Math.min(1, g.i.level));
  const groupRank = new Map();
  [...groups.values()].sort((a, b) => b.i.active_time - a.i.active_time || a.cls.localeCompare(b.cls)).forEach((g, k) => groupRank.set(g.key, k + 1));
  // Classes with few instances, all drawn, start expanded (a pipeline keeps its shape).
  const SMALL = new Set((D.class_graph && D.class_graph.expanded) || []);
  // The class-level node an instance belongs to in the whole-run class graph.
  const cgKey = (n) => (n.i.kind === 'root' || !n.i.class || SMALL.has(n.i.class)) ? n.key : 'c:' + n.i.class;
  const nodeByKey = new Map(nodes.map((n) => [n.key, n]));
  for (const g of groups.values()) nodeByKey.set(g.key, g);

  // ---------- view state ----------
  const state = {
    view: D.instances.length > 100 ? 'classes' : 'instances', // big runs start at class level
    expanded: new Set(SMALL),
    topN: 20,
    colour: 'value',
  };
  const groupEdges = new Map();
  const display = (n) => (state.view === 'classes' && n.i.kind !== 'root' && n.i.class && !state.expanded.has(n.i.class)) ? groups.get(n.i.class) : n;
  let allowed = null; // 'top' view: the top N instances and their neighbours
  function computeAllowed() {
    if (state.view !== 'top') { allowed = null; return; }
    allowed = new Set([root.id]);
    const top = nodes.filter((n) => n.i.kind !== 'root').sort((a, b) => (instRank.get(a.id) || 1e9) - (instRank.get(b.id) || 1e9)).slice(0, state.topN);
    for (const n of top) {
      allowed.add(n.id);
      for (const e of n.out) allowed.add(e.receiver);
      for (const e of n.inn) allowed.add(e.sender);
    }
  }


  // The instance a hint is about (its own, the heaviest receiver of its method or class).
  function hintTarget(h) {
    if (h.instance !== null && h.instance !== undefined && nodeById.has(h.instance)) return nodeById.get(h.instance);
    if (h.method !== null && h.method !== undefined) {
      const ls = links.filter((l) => l.m === h.method).sort((a, b) => b.net - a.net);
      if (ls.length && nodeById.has(ls[0].r)) return nodeById.get(ls[0].r);
    }
    const cls = h.class;
    if (cls && groups.has(cls)) return groups.get(cls).members.slice().sort((a, b) => b.i.active_time - a.i.active_time)[0];
    if (h.message !== null && h.message !== undefined) {
      const m = D.messages.find((x) => x.order === h.message);
      if (m && nodeById.has(m.receiver)) return nodeById.get(m.receiver);
    }
    return null;
  }
  function focusHint(h) {
    // A class's hint is about all its instances: its class node, or every drawn instance.
    if (h.class && h.subject === h.class && groups.has(h.class)) { focusClass(groups.get(h.class)); return; }
    const n = hintTarget(h);
    if (!n) { $('graph-note').textContent = 'the objects of "' + hintText(h).slice(0, 60) + '" are not among the drawn instances'; return; }
    focusNode(n, true);
  }

  // ---------- layout ----------
  // Positions come from the report file (computed once by `revy report`). This JS layout
  // (radial tree from the root, then force refinement) runs only on "re-layout", and with
  // `pinned` (nodes that already have a place) for a few iterations to fit in the
  // instances of an expanded class.
  function layout(use, pairs, pinned) {
    if (!use.length) return;
    const byKey = new Map(use.map((n) => [n.key, n]));
    const adj = new Map(use.map((n) => [n.key, []]));
    const seen = new Set();
    for (const [a, b] of pairs) {
      if (a === b || !byKey.has(a.key) || !byKey.has(b.key)) continue;
      const k = a.key < b.key ? a.key + '|' + b.key : b.key + '|' + a.key;
      if (seen.has(k)) continue;
      seen.add(k);
      adj.get(a.key).push(b.key); adj.get(b.key).push(a.key);
    }
    const act = (k) => byKey.get(k).i.active_time;
    for (const a of adj.values()) a.sort((x, y) => act(y) - act(x) || (x < y ? -1 : 1));
    const start = byKey.has(root.key) ? root.key : use[0].key;
    const parent = new Map([[start, null]]), depth = new Map([[start, 0]]), kids = new Map();
    const order = [start];
    const bfs = (from) => {
      let q = [from];
      while (q.length) {
        const nq = [];
        for (const v of q) for (const w of adj.get(v)) {
          if (parent.has(w)) continue;
          parent.set(w, v); depth.set(w, depth.get(v) + 1);
          if (!kids.has(v)) kids.set(v, []);
          kids.get(v).push(w); order.push(w); nq.push(w);
        }
        q = nq;
      }
    };
    bfs(start);
    const rest = use.filter((n) => !parent.has(n.key)).sort((a, b) => b.i.active_time - a.i.active_time || (a.key < b.key ? -1 : 1));
    for (const n of rest) {
      if (parent.has(n.key)) continue;
      parent.set(n.key, start); depth.set(n.key, 1);
      if (!kids.has(start)) kids.set(start, []);
      kids.get(start).push(n.key); order.push(n.key);
      bfs(n.key);
    }
    const leaves = new Map();
    for (let k = order.length - 1; k >= 0; k--) {
      const c = kids.get(order[k]) || [];
      leaves.set(order[k], c.length ? c.reduce((s, w) => s + leaves.get(w), 0) : 1);
    }
    const perRing = [];
    for (const v of order) { const d = depth.get(v); perRing[d] = (perRing[d] || 0) + 1; }
    const spacing = 46, radius = [0];
    for (let d = 1; d < perRing.length; d++) radius[d] = Math.max(radius[d - 1] + 110, perRing[d] * spacing / (2 * Math.PI));
    const ang = new Map([[start, [0, 2 * Math.PI]]]);
    const target = new Map();
    for (const v of order) {
      const [a0, a1] = ang.get(v);
      const mid = (a0 + a1) / 2, d = depth.get(v);
      target.set(v, [radius[d] * Math.cos(mid), radius[d] * Math.sin(mid)]);
      let a = a0;
      for (const w of kids.get(v) || []) { const s = (a1 - a0) * leaves.get(w) / leaves.get(v); ang.set(w, [a, a + s]); a += s; }
    }
    const fixed = (n) => n.key === start || (pinned && pinned.has(n));
    for (const n of use) {
      n.deg = adj.get(n.key).length || 1;
      if (!pinned) { const t = target.get(n.key); n.x = t[0]; n.y = t[1]; }
    }
    const springs = [];
    for (const [a, ns] of adj) for (const b of ns) if (a < b) springs.push([byKey.get(a), byKey.get(b)]);
    const L = 90, R = 3 * L;
    const iters = pinned ? 30 : use.length > 1500 ? 40 : 120;
    const pull = use.length <= 60 && !pinned ? 0.5 : 0;
    const cell = (x) => Math.floor(x / R);
    for (let it = 0; it < iters; it++) {
      const temp = 40 * (1 - it / iters) + 2;
      for (const n of use) { n.fx = 0; n.fy = 0; }
      const grid = new Map();
      use.forEach((n, k) => { n.ix = k; const c = cell(n.x) + ',' + cell(n.y); if (!grid.has(c)) grid.set(c, []); grid.get(c).push(n); });
      for (const n of use) {
        const cx = cell(n.x), cy = cell(n.y);
        for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) {
          const b = grid.get((cx + dx) + ',' + (cy + dy));
          if (!b) continue;
          for (const m of b) {
            if (m.ix <= n.ix) continue;
            let vx = m.x - n.x, vy = m.y - n.y, d2 = vx * vx + vy * vy;
            if (d2 > R * R) continue;
            if (d2 < 0.01) { vx = Math.cos(m.ix); vy = Math.sin(m.ix); d2 = 1; }
            const d = Math.sqrt(d2), f = L * L / d;
            n.fx -= vx / d * f; n.fy -= vy / d * f; m.fx += vx / d * f; m.fy += vy / d * f;
          }
        }
      }
      for (const [a, b] of springs) {
        const vx = b.x - a.x, vy = b.y - a.y, d = Math.hypot(vx, vy) || 1;
        const f = d * d / L / Math.max(1, Math.sqrt(a.deg * b.deg));
        a.fx += vx / d * f; a.fy += vy / d * f; b.fx -= vx / d * f; b.fy -= vy / d * f;
      }
      for (const n of use) {
        if (fixed(n)) { if (!pinned) { n.x = 0; n.y = 0; } continue; }
        n.fx -= n.x * 0.02; n.fy -= n.y * 0.02;
        if (pull) { const t = target.get(n.key); n.fx += (t[0] - n.x) * pull; n.fy += (t[1] - n.y) * pull; }
        const f = Math.hypot(n.fx, n.fy) || 1, step = Math.min(f, temp);
        n.x += n.fx / f * step; n.y += n.fy / f * step;
      }
    }
    const minD = 34, cellD = (x) => Math.floor(x / minD);
    for (let it = 0; it < 30; it++) {
      const grid = new Map();
      for (const n of use) { const c = cellD(n.x) + ',' + cellD(n.y); if (!grid.has(c)) grid.set(c, []); grid.get(c).push(n); }
      let moved = false;
      for (const n of use) {
        const cx = cellD(n.x), cy = cellD(n.y);
        for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) {
          const b = grid.get((cx + dx) + ',' + (cy + dy));
          if (!b) continue;
          for (const m of b) {
            if (m.ix <= n.ix) continue;
            let vx = m.x - n.x, vy = m.y - n.y, d = Math.hypot(vx, vy);
            const want = Math.max(minD, n.r + m.r + 8);
            if (d >= want) continue;
            if (d < 0.01) { vx = Math.cos(m.ix); vy = Math.sin(m.ix); d = 1; }
            const push = (want - d) / 2, ux = vx / d * push, uy = vy / d * push;
            if (fixed(n) && fixed(m)) continue;
            if (!fixed(n)) { n.x -= ux; n.y -= uy; }
            if (!fixed(m)) { m.x += ux; m.y += uy; }
            moved = true;
          }
        }
      }
      if (!moved) break;
    }
  }

  // ---------- drawing ----------
  const svg = $('graph'), vp = $('viewport'), gEdges = $('edges'), gNodes = $('nodes');
  const view = { x: 0, y: 0, k: 1 };
  let labelsQueued = false;
  // Zoom and pan change one transform; labels live in a screen-space layer redrawn once per
  // frame for the nodes in view (no restyling of every element per wheel step).
  const drawnAt = { x: 0, y: 0, k: 1 }; // the view the SVG was last painted at
  let settle = null;
  const applyView = () => {
    clearTimeout(settle); settle = null;
    svg.style.transform = '';
    Object.assign(drawnAt, view);
    requestEdges();
    vp.setAttribute('transform', 'translate(' + view.x + ',' + view.y + ') scale(' + view.k + ')');
    if (!labelsQueued) { labelsQueued = true; requestAnimationFrame(() => { labelsQueued = false; declutter(); }); }
  };
  // While the wheel turns or a drag pans, the picture painted last moves as a whole (a CSS
  // transform of the SVG's own layer: the compositor redraws nothing); the SVG is painted
  // again at the new view once input rests. Painting a thousand edges takes longer than a frame.
  const moveView = () => {
    const s = view.k / drawnAt.k;
    svg.style.transform = 'translate(' + (view.x - s * drawnAt.x) + 'px,' + (view.y - s * drawnAt.y) + 'px) scale(' + s + ')';
    ec.style.transform = svg.style.transform;
    clearTimeout(settle);
    settle = setTimeout(applyView, 160);
  };
  // Dense graphs (past EDGE_CANVAS edges shown) stroke their edges on a canvas under the
  // nodes: the SVG edge elements stay the model (state classes, data, the inspector's picks)
  // but are not rendered. Repainting a thousand SVG paths took 100–400 ms each time input
  // rested; the canvas is redrawn in one animation frame when the view, a path or an edge's
  // state changes. Clicks pick edges by distance to their curves, as before.
  const EDGE_CANVAS = 300, NODE_CANVAS = 300;
  const ec = el('canvas', { id: 'graph-edges', 'aria-hidden': 'true' });
  svg.before(ec);
  const ectx = ec.getContext('2d');
  let edgesQueued = false;
  function requestEdges() {
    if (edgesQueued || !svg.classList.contains('canvas-edges')) return;
    edgesQueued = true;
    requestAnimationFrame(() => { edgesQueued = false; drawEdges(); });
  }
  // One frame's paint, batched: edges go into one Path2D per style (colour, width, alpha,
  // dash), arrowheads into one per colour and alpha, so Chromium strokes a few paths instead
  // of thousands with a state change each (the repaint at 968 nodes / 3,000 edges took
  // 66–105 ms per edge). Off-screen edges are culled and edges under a pixel on screen
  // skipped (their nodes cover them). The canvas's edges are hairlines (under a pixel on
  // screen, Skia's fast path), their net time in their opacity (styleEdges): a thousand
  // class edges 1.4–2.1 px wide took 88–100 ms to raster, as hairlines 17–21 ms. Only the
  // animated edge keeps a wide stroke.
  function drawEdges() {
    const t0 = performance.now();
    const W = svg.clientWidth || 800, H = svg.clientHeight || 600, k = drawnAt.k;
    if (ec.width !== W || ec.height !== H) { ec.width = W; ec.height = H; }
    ectx.setTransform(1, 0, 0, 1, 0, 0);
    ectx.clearRect(0, 0, W, H);
    ectx.setTransform(k, 0, 0, k, drawnAt.x, drawnAt.y);
    ectx.lineCap = 'round';
    const focusing = svg.classList.contains('focusing');
    // In view only (in graph units, with a margin for curves and self-loops).
    const x0 = -drawnAt.x / k - 80, y0 = -drawnAt.y / k - 80, x1 = x0 + W / k + 160, y1 = y0 + H / k + 160;
    const halos = new Map(), lines = new Map(), heads = new Map();
    const batch = (m, key) => { let b = m.get(key); if (!b) { b = new Path2D(); m.set(key, b); } return b; };
    let n = 0;
    for (const e of shownEdges) {
      const c = e.curve, cl = e.g.classList;
      if (!e.visible || !c || cl.contains('hidden')) continue;
      if (Math.max(c[0], c[2], c[4]) < x0 || Math.min(c[0], c[2], c[4]) > x1 || Math.max(c[1], c[3], c[5]) < y0 || Math.min(c[1], c[3], c[5]) > y1) continue;
      const loop = e.sn === e.rn;
      if (!loop && (Math.abs(c[4] - c[0]) + Math.abs(c[5] - c[1])) * k < 1) continue;
      const active = cl.contains('active'), w = active ? 5 : Math.round(4 * (e.width || 1)) / 4;
      // Focusing: the focus's edges stand out (their weight still in their opacity), the rest fade.
      const a = e.alpha || 1, alpha = active ? 1 : !focusing ? a : cl.contains('nbr') ? 0.5 + 0.5 * a : 0.12;
      const colour = active ? '#ff8c00' : e.stroke || EDGE_COLOUR;
      const add = (p) => { if (loop) { const x = c[0] + 5, y = c[1]; p.moveTo(x - 5, y); p.bezierCurveTo(x - 28, y - 40, x + 28, y - 40, x + 5, y - 1); } else { p.moveTo(c[0], c[1]); p.quadraticCurveTo(c[2], c[3], c[4], c[5]); } };
      if (cl.contains('hl')) add(batch(halos, 0.85 * alpha));
      add(batch(lines, colour + '|' + (active ? w : HAIR / k) + '|' + alpha + '|' + (cl.contains('selected') ? 1 : 0)));
      // The arrowhead, sized in stroke widths like the SVG's markers (none under 1.5 px).
      const L = 2.6 * w;
      if (L * k >= 1.5) {
        const [fx, fy] = loop ? [c[0] + 33, c[1] - 40] : [c[2], c[3]];
        const dx = c[4] - fx, dy = c[5] - fy, l = Math.hypot(dx, dy) || 1, ux = dx / l, uy = dy / l;
        const tx = c[4] + ux * 0.2 * L, ty = c[5] + uy * 0.2 * L, p = batch(heads, colour + '|' + alpha);
        p.moveTo(tx, ty); p.lineTo(tx - ux * L - uy * L / 2, ty - uy * L + ux * L / 2); p.lineTo(tx - ux * L + uy * L / 2, ty - uy * L - ux * L / 2); p.closePath();
      }
      n++;
    }
    // Highlight halos: a ring of HALO screen pixels each side of the line, whatever the zoom.
    ectx.strokeStyle = '#ffe44d'; ectx.lineWidth = (HAIR + 2 * HALO) / k;
    for (const [a, p] of halos) { ectx.globalAlpha = a; ectx.stroke(p); }
    for (const [key, p] of lines) {
      const [colour, w, a, dash] = key.split('|');
      ectx.globalAlpha = Number(a); ectx.strokeStyle = colour; ectx.lineWidth = Number(w);
      ectx.setLineDash(dash === '1' ? [6, 3] : []);
      ectx.stroke(p);
    }
    ectx.setLineDash([]);
    for (const [key, p] of heads) { const [colour, a] = key.split('|'); ectx.globalAlpha = Number(a); ectx.fillStyle = colour; ectx.fill(p); }
    ectx.globalAlpha = 1;
    const nodesOn = svg.classList.contains('canvas-nodes');
    ec.dataset.nodes = nodesOn ? drawNodes(x0, y0, x1, y1, focusing) : 0;
    ectx.globalAlpha = 1; ectx.setLineDash([]);
    if (nodesOn) drawLabels(W, H);
    ec.style.transform = '';
    ec.dataset.drawn = n;
    ec.dataset.batches = halos.size + lines.size + heads.size;
    perf.graph.push(performance.now() - t0);
  }
  // Dense graphs paint their nodes here as well (past NODE_CANVAS): the SVG nodes stay the
  // model (state classes, fill, data; tests and the inspector read them) but are not
  // rendered, and the pointer finds nodes with nodeAt. Batched like the edges: one path per
  // fill, one per outline style.
  function drawNodes(x0, y0, x1, y1, focusing) {
    let n = 0;
    const halos = new Map(), fills = new Map(), rims = new Map();
    const batch = (m, key) => { let b = m.get(key); if (!b) { b = new Path2D(); m.set(key, b); } return b; };
    const disc = (p, x, y, r) => { p.moveTo(x + r, y); p.arc(x, y, r, 0, 6.2832); };
    for (const v of shownNodes) {
      const cl = v.g.classList;
      if (!v.visible || v.x + v.r < x0 || v.x - v.r > x1 || v.y + v.r < y0 || v.y - v.r > y1) continue;
      const a = focusing && !cl.contains('focus') && !cl.contains('nbr') ? 0.25 : 1;
      if (cl.contains('hl')) disc(batch(halos, a), v.x, v.y, v.r + HALO / drawnAt.k);
      disc(batch(fills, (v.fill || '#999') + '|' + a), v.x, v.y, v.r);
      const [sc, sw] = cl.contains('active') ? ['#ff8c00', 5] : cl.contains('selected') ? ['#000', 3] : cl.contains('focus') ? ['#ff8c00', 4] : v.group ? ['#263238', 2] : ['#5d4037', 1];
      disc(batch(rims, sc + '|' + sw + '|' + a + '|' + (v.group && sw === 2 ? 1 : 0)), v.x, v.y, v.r);
      n++;
    }
    ectx.fillStyle = '#ffe44d';
    for (const [a, p] of halos) { ectx.globalAlpha = a; ectx.fill(p); }
    for (const [key, p] of fills) { const [f, a] = key.split('|'); ectx.globalAlpha = Number(a); ectx.fillStyle = f; ectx.fill(p); }
    for (const [key, p] of rims) {
      const [sc, sw, a, dash] = key.split('|');
      ectx.globalAlpha = Number(a); ectx.strokeStyle = sc; ectx.lineWidth = Number(sw);
      ectx.setLineDash(dash === '1' ? [4, 2] : []);
      ectx.stroke(p);
    }
    return n;
  }
  // The node under (px, py) in screen pixels (canvas-painted nodes): the nearest whose
  // circle holds it, the one drawn last (on top) on ties.
  function nodeAt(px, py) {
    if (!svg.classList.contains('canvas-nodes')) return null;
    const x = (px - view.x) / view.k, y = (py - view.y) / view.k, pad = 2 / view.k;
    let best = null, bd = Infinity;
    for (const v of shownNodes) {
      if (!v.visible) continue;
      const d = Math.hypot(v.x - x, v.y - y);
      if (d <= v.r + pad && d <= bd) { bd = d; best = v; }
    }
    return best;
  }
  // Any change of an edge's state or style, or of the graph's, asks for a frame.
  new MutationObserver(requestEdges).observe(gEdges, { subtree: true, attributes: true, attributeFilter: ['class', 'stroke', 'data-width'] });
  new MutationObserver(() => { if (svg.classList.contains('canvas-nodes')) requestEdges(); }).observe(gNodes, { subtree: true, attributes: true, attributeFilter: ['class', 'fill', 'transform'] });
  new MutationObserver(requestEdges).observe(svg, { attributes: true, attributeFilter: ['class'] });
  (function markers() {
    const defs = $('markers');
    const all = Object.assign({}, COLOURS, { edge: EDGE_COLOUR, active: '#ff8c00' });
    // In stroke widths: a thick edge gets a head wider than itself (never hidden inside it).
    for (const b of Object.keys(all)) {
      const m = sv('marker', { id: 'arrow-' + b, viewBox: '0 0 10 10', refX: '8', refY: '5', markerWidth: '2.6', markerHeight: '2.6', orient: 'auto-start-reverse', markerUnits: 'strokeWidth' });
      m.appendChild(sv('path', { d: 'M0,0 L10,5 L0,10 z', fill: all[b] }));
      defs.appendChild(m);
    }
  })();

  function edgeElement(e, title) {
    const g = sv('g', { class: 'edge', 'data-key': e.key, 'data-sender': e.sender, 'data-receiver': e.receiver, 'data-calls': e.calls });
    e.halo = sv('path', { class: 'halo' });
    e.line = sv('path', { class: 'line' });
    e.title = sv('title');
    e.title.textContent = title;
    g.append(e.halo, e.line, e.title);
    e.g = g;
    gEdges.appendChild(g);
  }
  for (const e of edges) edgeElement(e, label(e.sender) + ' → ' + label(e.receiver) + ': ' + e.calls + ' calls, net ' + fmtT(e.net_time));
  function nodeElement(n, attrs) {
    const g = sv('g', Object.assign({ class: 'node' }, attrs));
    // A highlight ring of HALO graph units (the canvas's: HALO screen pixels).
    const halo = sv('circle', { class: 'halo', r: n.r + HALO });
    n.body = sv('circle', { class: 'body', r: n.r });
    const l = n.i.label;
    n.text = l.length > 28 ? l.slice(0, 27) + '…' : l;
    g.dataset.label = n.text;
    const title = sv('title');
    title.textContent = l + ': work ' + fmtT(n.i.active_time) + ' (' + pct(n.i.level) + ' of busy time)' + (n.group ? ' — click to expand into instances' : '');
    g.append(halo, n.body, title);
    n.g = g;
    gNodes.appendChild(g);
  }
  for (const n of nodes) nodeElement(n, { 'data-id': n.id, 'data-oid': n.i.oid, 'data-class': n.i.class || '', 'data-band': n.i.band, 'data-level': n.i.level });
  for (const g of groups.values()) {
    nodeElement(g, { 'data-id': g.key, 'data-group': g.cls, 'data-band': g.i.band, 'data-level': g.i.level, 'data-instances': g.row.instances, 'data-active': g.i.active_time });
    g.g.classList.add('group', 'hidden');
    g.out = []; g.inn = [];
  }

  // The scale's top: the largest share among the drawn non-root nodes.
  let scaleMax = 0;
  function colourNodes() {
    scaleMax = 0;
    for (const n of shownNodes) if (n.i.kind !== 'root') scaleMax = Math.max(scaleMax, n.i.level);
    for (const n of nodes.concat([...groups.values()])) {
      let c, tag, q;
      if (n.i.kind === 'root') { c = q = '#455a64'; tag = 'root'; } else if (state.colour === 'bands') { tag = n.i.band; c = q = COLOURS[tag]; } else {
        const t = scaleMax > 0 ? n.i.level / scaleMax : 0;
        c = scaleColour(t); tag = t.toFixed(4);
        q = scaleColour(Math.round(t * 127) / 127);
      }
      n.body.setAttribute('fill', c);
      // The canvas's fill (drawNodes): the scale in 128 steps (a fill per step drawn, not
      // one per node; a step is under half of the 8-bit channels' unit).
      n.fill = q;
      n.g.dataset.colour = tag;
    }
  }
  // Edges: width by net time, one colour (or the thesis bands); time per byte is in the tables.
  // On the canvas (past EDGE_CANVAS edges) they are hairlines and their opacity carries the
  // net time (the width stays the arrowheads' size and the SVG's stroke): OPACITY steps,
  // quantised so the canvas strokes a path per step.
  const HAIR = 0.9, OPACITY = [0.16, 0.3, 0.45, 0.62, 0.8, 1];
  let thinEdges = false;
  function styleEdges(vis) {
    const maxNet = Math.max(1, ...vis.map((e) => e.net_time));
    thinEdges = vis.length > EDGE_CANVAS || svg.classList.contains('canvas-nodes');
    for (const e of vis) {
      let col, w;
      const t = Math.sqrt(e.net_time / maxNet);
      e.alpha = thinEdges ? OPACITY[Math.min(OPACITY.length - 1, Math.floor(t * OPACITY.length))] : 1;
      if (state.colour === 'bands') { col = e.band || 'rest'; w = 1 + Math.log10(Math.max(1, e.calls)) * 0.8; } else {
        col = 'edge';
        // Dense graphs get thin edges: hundreds of thick strokes merge into one grey area.
        w = 1 + (vis.length > 150 ? 2 : 7) * t;
      }
      e.stroke = COLOURS[col] || EDGE_COLOUR; e.width = Number(w.toFixed(2)); // drawEdges' copies
      e.line.setAttribute('stroke', e.stroke);
      e.line.setAttribute('stroke-width', w.toFixed(2));
      e.halo.setAttribute('stroke-width', (w + 2 * HALO).toFixed(2));
      e.line.setAttribute('marker-end', 'url(#arrow-' + col + ')');
      e.g.dataset.width = w.toFixed(2);
    }
  }
  // Always in view (top left of the graph): what colour and width mean.
  function legend() {
    const lg = $('legend');
    lg.textContent = '';
    const put = (text, colour) => { const i = el('i'); i.style.background = colour; lg.appendChild(i); lg.appendChild(document.createTextNode(text)); };
    if (state.colour === 'bands') {
      lg.appendChild(document.createTextNode('share of busy time:'));
      for (const b of ['over60', 'over30', 'over10', 'rest']) put(BAND_TEXT[b], COLOURS[b]);
    } else {
      lg.appendChild(el('span', null, 'work, share of busy time: 0 '));
      const bar = el('span', { class: 'scale' });
      bar.style.background = 'linear-gradient(to right,' + SCALE.join(',') + ')';
      lg.appendChild(bar);
      lg.appendChild(el('span', { id: 'legend-max' }, ' ' + pct(scaleMax)));
    }
    put('thread', '#455a64');
    lg.appendChild(el('br'));
    if (!thinEdges) { lg.appendChild(document.createTextNode('edge width = net time of its messages')); return; }
    lg.appendChild(el('span', null, 'edge opacity, arrow size = net time: 0 '));
    const bar = el('span', { class: 'scale short' });
    bar.style.background = 'linear-gradient(to right,' + OPACITY.map((a) => 'rgba(' + hex(EDGE_COLOUR).join(',') + ',' + a + ')').join(',') + ')';
    lg.appendChild(bar);
    lg.appendChild(el('span', null, ' max'));
  }

  function edgePath(e) {
    const s = e.sn, r = e.rn;
    if (!s || !r) return;
    let d, lx, ly;
    if (s === r) {
      const x = s.x, y = s.y - s.r;
      d = 'M' + (x - 5) + ',' + y + ' C' + (x - 28) + ',' + (y - 40) + ' ' + (x + 28) + ',' + (y - 40) + ' ' + (x + 5) + ',' + (y - 1);
      e.curve = [x - 5, y, x, y - 60, x + 5, y - 1];
      lx = x; ly = y - 34;
    } else {
      const dx = r.x - s.x, dy = r.y - s.y, len = Math.hypot(dx, dy) || 1;
      const nx = -dy / len, ny = dx / len, bend = Math.min(30, len * 0.12);
      const mx = (s.x + r.x) / 2 + nx * bend, my = (s.y + r.y) / 2 + ny * bend;
      const h = Math.hypot(r.x - mx, r.y - my) || 1;
      const ex = r.x - (r.x - mx) / h * (r.r + 2), ey = r.y - (r.y - my) / h * (r.r + 2);
      d = 'M' + s.x.toFixed(1) + ',' + s.y.toFixed(1) + ' Q' + mx.toFixed(1) + ',' + my.toFixed(1) + ' ' + ex.toFixed(1) + ',' + ey.toFixed(1);
      e.curve = [s.x, s.y, mx, my, ex, ey];
      lx = (s.x + 2 * mx + r.x) / 4; ly = (s.y + 2 * my + r.y) / 4;
    }
    e.line.setAttribute('d', d); e.halo.setAttribute('d', d);
    e.lx = lx; e.ly = ly - 3;
  }
  // Distance from (x, y) to an edge's curve: to the nearest chord of 24 (distance to the
  // sample points alone is off by half a chord, enough to pick a neighbouring edge).
  function edgeDistance(e, x, y) {
    const c = e.curve;
    if (!c) return Infinity;
    const pad = 40 + Math.abs(c[2] - c[0]) + Math.abs(c[3] - c[1]);
    if (x < Math.min(c[0], c[4]) - pad || x > Math.max(c[0], c[4]) + pad || y < Math.min(c[1], c[5]) - pad || y > Math.max(c[1], c[5]) + pad) return Infinity;
    let best = Infinity, ax = c[0], ay = c[1];
    for (let k = 1; k <= 24; k++) {
      const t = k / 24, u = 1 - t;
      const bx = u * u * c[0] + 2 * u * t * c[2] + t * t * c[4], by = u * u * c[1] + 2 * u * t * c[3] + t * t * c[5];
      const dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
      const s = l2 ? Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / l2)) : 0;
      best = Math.min(best, Math.hypot(ax + s * dx - x, ay + s * dy - y));
      ax = bx; ay = by;
    }
    return best;
  }
  function place(n) { n.g.setAttribute('transform', 'translate(' + n.x.toFixed(1) + ',' + n.y.toFixed(1) + ')'); }
  let shownNodes = [], shownEdges = [];
  function drawAll() {
    for (const n of shownNodes) place(n);
    for (const e of shownEdges) edgePath(e);
    requestEdges();
    declutter();
  }

  // Labels: highest priority first (focus, selection, activity), only for nodes in the
  // window; a label overlapping one already placed on screen is left out. They are drawn in
  // screen space (#labels, a pool of text elements), so zooming restyles nothing.
  const gLabels = $('labels');
  const pool = [];
  const labelAt = (k, cls) => {
    let t = pool[k];
    if (!t) { t = sv('text'); pool.push(t); gLabels.appendChild(t); }
    t.setAttribute('class', cls);
    return t;
  };
  // Past NODE_CANVAS nodes the labels are painted on the canvas too (drawLabels, after the
  // nodes, at the view the canvas was painted at): no text element per label, and they move
  // with the canvas's transform during a gesture.
  const canvasLabels = () => svg.classList.contains('canvas-nodes');
  function declutter() {
    if (canvasLabels()) {
      for (const t of pool) t.setAttribute('class', 'unused');
      requestEdges();
      return;
    }
    let used = 0;
    const r = placeLabels(view, svg.clientWidth || 800, svg.clientHeight || 600, (cls, x, y, text, key) => {
      const t = labelAt(used++, cls);
      t.setAttribute('x', x.toFixed(1)); t.setAttribute('y', y.toFixed(1));
      t.dataset.for = key;
      t.textContent = text;
    });
    for (let k = used; k < pool.length; k++) pool[k].setAttribute('class', 'unused');
    svg.dataset.labels = r[0];
    svg.dataset.counts = r[1];
    svg.dataset.labelsOn = 'svg';
  }
  // The canvas's labels: placed as declutter places them, drawn in screen pixels with a
  // white halo (all halos, then all text: two style changes a frame).
  function drawLabels(W, H) {
    const put = [];
    const r = placeLabels(drawnAt, W, H, (cls, x, y, text) => put.push([cls, x, y, text]));
    ectx.setTransform(1, 0, 0, 1, 0, 0);
    ectx.lineJoin = 'round'; ectx.lineWidth = 3; ectx.strokeStyle = '#fff';
    for (const small of [false, true]) {
      const these = put.filter((l) => (l[0] === 'edge-count') === small);
      if (!these.length) continue;
      ectx.font = small ? '10px sans-serif' : '11px sans-serif';
      ectx.textAlign = small ? 'center' : 'start';
      for (const l of these) ectx.strokeText(l[3], l[1], l[2]);
      ectx.fillStyle = small ? '#444' : '#222';
      for (const l of these) ectx.fillText(l[3], l[1], l[2]);
    }
    ectx.textAlign = 'start';
    svg.dataset.labels = r[0];
    svg.dataset.counts = r[1];
    svg.dataset.labelsOn = 'canvas';
    ec.dataset.labels = put.map((l) => l[3]).join('\n');
  }
  // Highest priority first; `put(class, x, y, text, key)` for each label kept, in screen
  // pixels at view `v`. Returns [node labels, edge counts].
  function placeLabels(v, W, H, put) {
    const names = !svg.classList.contains('no-labels'), counts = !svg.classList.contains('no-counts');
    const on = (x, y, m) => x > -m && y > -m && x < W + m && y < H + m;
    const vis = shownNodes.filter((n) => n.visible && on(v.x + v.k * n.x, v.y + v.k * n.y, v.k * n.r + 200));
    vis.sort((a, b) => (b === focused) - (a === focused) || (b === selected) - (a === selected) || b.i.active_time - a.i.active_time);
    const grid = new Map(), C = 24; // cells of a few label boxes each
    const hit = (b) => {
      for (let gx = Math.floor(b[0] / C); gx <= Math.floor(b[2] / C); gx++) for (let gy = Math.floor(b[1] / C); gy <= Math.floor(b[3] / C); gy++) {
        for (const o of grid.get(gx * 65536 + gy) || []) if (b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3]) return true;
      }
      return false;
    };
    const add = (b) => {
      for (let gx = Math.floor(b[0] / C); gx <= Math.floor(b[2] / C); gx++) for (let gy = Math.floor(b[1] / C); gy <= Math.floor(b[3] / C); gy++) {
        const k = gx * 65536 + gy; if (!grid.has(k)) grid.set(k, []); grid.get(k).push(b);
      }
    };
    // In priority order: a node's circle blocks later labels, its label must avoid the
    // circles and labels placed before it (so busy centres still name their main objects).
    let shown = 0;
    for (const n of vis) {
      const cx = v.x + v.k * n.x, cy = v.y + v.k * n.y, r = v.k * n.r;
      const sx = cx + r + 3;
      const b = [sx, cy - 8, sx + n.text.length * 6.3, cy + 6];
      const ok = names && on(sx, cy, 0) && !hit(b);
      add([cx - r, cy - r, cx + r, cy + r]);
      if (!ok) continue;
      add(b); shown++;
      put('node-label', sx, cy + 4, n.text, n.key);
    }
    let nc = 0;
    if (counts) for (const e of shownEdges) {
      if (!e.visible || e.lx === undefined || !e.count) continue;
      const x = v.x + v.k * e.lx, y = v.y + v.k * e.ly, w = e.count.length * 6;
      const b = [x - w / 2, y - 9, x + w / 2, y + 2];
      if (!on(x, y, 0) || hit(b)) continue;
      add(b); nc++;
      put('edge-count', x, y, e.count, e.key);
    }
    return [shown, nc];
  }

  function fit() {
    const vis = shownNodes.filter((n) => n.visible);
    if (!vis.length) return;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const n of vis) { x0 = Math.min(x0, n.x - n.r); y0 = Math.min(y0, n.y - n.r - 40); x1 = Math.max(x1, n.x + n.r + 90); y1 = Math.max(y1, n.y + n.r + 10); }
    const rt = display(root);
    if (rt.visible) {
      const hx = Math.max(rt.x - x0, x1 - rt.x), hy = Math.max(rt.y - y0, y1 - rt.y);
      x0 = rt.x - hx; x1 = rt.x + hx; y0 = rt.y - hy; y1 = rt.y + hy;
    }
    const w = svg.clientWidth || 800, h = svg.clientHeight || 600;
    const k = Math.min(2, 0.95 * Math.min(w / (x1 - x0 || 1), h / (y1 - y0 || 1)));
    view.k = k; view.x = w / 2 - k * (x0 + x1) / 2; view.y = h / 2 - k * (y0 + y1) / 2;
    applyView();
  }
  function centreOn(n) {
    const w = svg.clientWidth || 800, h = svg.clientHeight || 600;
    view.k = Math.max(view.k, 0.8);
    view.x = w / 2 - view.k * n.x; view.y = h / 2 - view.k * n.y;
    applyView();
  }

  // ---------- pan, zoom, drag, click ----------
  (function interaction() {
    let drag = null;
    // Pointer positions against the (untransformed) box the SVG sits in.
    const wrap = $('graph-wrap');
    const pt = (ev) => { const b = wrap.getBoundingClientRect(); return [ev.clientX - b.left, ev.clientY - b.top]; };
    svg.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const [px, py] = pt(ev);
      const k = Math.max(0.02, Math.min(8, view.k * Math.exp(-ev.deltaY * 0.0015)));
      view.x = px - (px - view.x) * k / view.k; view.y = py - (py - view.y) * k / view.k; view.k = k;
      moveView();
    }, { passive: false });
    svg.addEventListener('pointerdown', (ev) => {
      const g = ev.target.closest('.node');
      const [px, py] = pt(ev);
      drag = { node: g ? nodeByKey.get(g.dataset.id) : nodeAt(px, py), px, py, vx: view.x, vy: view.y, moved: false };
      if (drag.node) { if (settle) applyView(); drag.nx = drag.node.x; drag.ny = drag.node.y; } else svg.classList.add('panning');
      svg.setPointerCapture(ev.pointerId);
    });
    // Canvas-drawn edges have no SVG title: the edge under the pointer is named in a tip.
    const tip = el('div', { id: 'graph-tip', hidden: '' });
    wrap.appendChild(tip);
    let hoverAt = null;
    const hoverEdge = () => {
      const [px, py] = hoverAt;
      hoverAt = null;
      const x = (px - view.x) / view.k, y = (py - view.y) / view.k;
      let best = nodeAt(px, py), bd = 7 / view.k;
      if (!best && svg.classList.contains('canvas-edges')) for (const e of shownEdges) if (e.visible) { const d = edgeDistance(e, x, y); if (d < bd) { bd = d; best = e; } }
      tip.hidden = !best;
      if (best) { tip.textContent = (best.title || best.g.querySelector('title')).textContent; tip.style.left = px + 14 + 'px'; tip.style.top = py + 12 + 'px'; tip.dataset.key = best.key; }
    };
    svg.addEventListener('pointerleave', () => { tip.hidden = true; });
    svg.addEventListener('pointermove', (ev) => {
      if (!drag) {
        if (ev.target.closest('.node')) { tip.hidden = true; return; }
        if (!hoverAt) requestAnimationFrame(hoverEdge);
        hoverAt = pt(ev);
        return;
      }
      tip.hidden = true;
      const [px, py] = pt(ev);
      const dx = px - drag.px, dy = py - drag.py;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (!drag.moved) return;
      if (drag.node) {
        const n = drag.node;
        n.x = drag.nx + dx / view.k; n.y = drag.ny + dy / view.k;
        place(n);
        for (const e of shownEdges) if (e.sn === n || e.rn === n) edgePath(e);
        requestEdges();
      } else { view.x = drag.vx + dx; view.y = drag.vy + dy; moveView(); }
    });
    const up = () => {
      if (!drag) return;
      if (!drag.moved) {
        if (drag.node) {
          const n = drag.node;
          if (n.group && n.members.length) expand(n.cls, true); else if (n.group) focusNode(n, false); else inspectNode(n);
        } else {
          // The edge under the pointer: the nearest curve within a few pixels.
          const x = (drag.px - view.x) / view.k, y = (drag.py - view.y) / view.k;
          let best = null, bd = 7 / view.k;
          for (const e of shownEdges) if (e.visible) { const d = edgeDistance(e, x, y); if (d < bd) { bd = d; best = e; } }
          if (best) inspectEdge(best); else { clearSelection(); unfocus(); }
        }
      }
      svg.classList.remove('panning');
      drag = null;
    };
    svg.addEventListener('pointerup', up);
    svg.addEventListener('pointercancel', up);
    $('fit').addEventListener('click', fit);
    $('relayout').addEventListener('click', () => { relayout(true); fit(); });
    $('show-labels').addEventListener('change', (ev) => { svg.classList.toggle('no-labels', !ev.target.checked); declutter(); });
    $('show-counts').addEventListener('change', (ev) => { svg.classList.toggle('no-counts', !ev.target.checked); declutter(); });
    $('view-mode').addEventListener('change', (ev) => setView(ev.target.value));
    $('top-n').addEventListener('change', (ev) => { state.topN = Math.max(1, Number(ev.target.value) || 20); if (state.view === 'top') setView('top'); });
    $('colour-mode').addEventListener('change', (ev) => { state.colour = ev.target.value; colourNodes(); styleEdges(shownEdges.filter((e) => e.visible)); legend(); });
  })();

  function setView(v) {
    state.view = v;
    $('view-mode').value = v;
    svg.dataset.view = v;
    notes();
    computeAllowed();
    applyFilters();
    relayout();
    fit();
  }
  // Expand a class group into its instances (and centre the most active one).
  function expand(cls, centre) {
    state.expanded.add(cls);
    applyFilters();
    relayout();
    const g = groups.get(cls);
    const top = g.members.filter((n) => n.visible).sort((a, b) => b.i.active_time - a.i.active_time)[0];
    if (top) { inspectNode(top); if (centre) centreOn(top); } else fit();
  }
  // Place the shown nodes: from the file's layout when it has them all (class view, instance
  // and top-N views); instances of expanded classes start around their class's place and
  // relax a little while the rest stays put. `full`: the JS layout from scratch.
  function relayout(full) {
    const use = shownNodes.filter((n) => n.visible);
    const pairs = shownEdges.filter((e) => e.visible).map((e) => [e.sn, e.rn]);
    const pre = D.layout && (state.view === 'classes' ? D.layout.classes : D.layout.instances);
    if (full || !pre) { layout(use, pairs); drawAll(); return; }
    const pinned = new Set(), loose = [];
    for (const n of use) {
      const p = pre[n.key];
      if (p) { n.x = p[0]; n.y = p[1]; pinned.add(n); } else loose.push(n);
    }
    const around = new Map();
    for (const n of loose) {
      const g = groups.get(n.i.class), c = g && pre[g.key] ? pre[g.key] : [0, 0], ck = g ? g.key : '';
      const k = around.get(ck) || 0;
      around.set(ck, k + 1);
      const a = k * 2.39996, r = 40 + 14 * Math.sqrt(k); // golden-angle spiral
      n.x = c[0] + r * Math.cos(a); n.y = c[1] + r * Math.sin(a);
    }
    if (loose.length) layout(use, pairs, pinned);
    svg.dataset.layout = loose.length ? 'file+' + loose.length : 'file';
    drawAll();
  }

  // ---------- inspector ----------
  const insp = $('inspector');
  let selected = null, focused = null;
  function clearSelection() {
    if (selected) selected.g.classList.remove('selected');
    selected = null;
  }
  function select(x) { clearSelection(); selected = x; x.g.classList.add('selected'); }
  function kv(table, k, v, field, raw) {
    const tr = el('tr'); tr.appendChild(el('th', null, k));
    const td = el('td', field ? { 'data-field': field } : null, v === null || v === undefined ? '—' : String(v));
    if (raw !== undefined) td.dataset.v = raw;
    tr.appendChild(td); table.appendChild(tr);
  }
  function button(text, f, attrs) { const b = el('button', Object.assign({ type: 'button' }, attrs || {}), text); b.addEventListener('click', f); return b; }
  // Select a node, centre it and highlight its neighbours; hidden instances are brought out.
  function focusNode(n, centre) {
    if (!n.group && state.view === 'classes' && display(n) !== n) expand(n.i.class, false);
    if (!n.group && allowed && !allowed.has(n.id)) setView('instances');
    if (!n.visible && !n.group) { $('graph-note').textContent = label(n.id) + ' has no visible messages (filters)'; }
    unfocus();
    focused = n;
    svg.classList.add('focusing');
    n.g.classList.add('focus');
    let k = 0;
    for (const e of shownEdges) {
      if (!e.visible || (e.sn !== n && e.rn !== n)) continue;
      e.g.classList.add('nbr'); e.sn.g.classList.add('nbr'); e.rn.g.classList.add('nbr'); k++;
    }
    svg.dataset.focus = n.key; svg.dataset.neighbourEdges = k;
    if (n.group) inspectGroup(n); else inspectNode(n);
    if (centre) centreOn(n); else declutter();
  }
  function focusClass(g) {
    if (state.view === 'classes' && !state.expanded.has(g.cls)) { focusNode(g, true); return; }
    if (state.view === 'top') setView('instances');
    unfocus();
    svg.classList.add('focusing');
    let k = 0;
    const members = new Set(g.members.filter((n) => n.visible));
    for (const n of members) n.g.classList.add('focus');
    for (const e of shownEdges) {
      if (!e.visible || (!members.has(e.sn) && !members.has(e.rn))) continue;
      e.g.classList.add('nbr'); e.sn.g.classList.add('nbr'); e.rn.g.classList.add('nbr'); k++;
    }
    focused = g;
    svg.dataset.focus = g.key; svg.dataset.focusCount = members.size; svg.dataset.neighbourEdges = k;
    inspectGroup(g);
    declutter();
  }
  function unfocus() {
    focused = null;
    svg.classList.remove('focusing');
    for (const x of gNodes.querySelectorAll('.focus, .nbr')) x.classList.remove('focus', 'nbr');
    for (const x of gEdges.querySelectorAll('.nbr')) x.classList.remove('nbr');
    delete svg.dataset.focus;
    delete svg.dataset.focusCount;
  }
  function neighbourLinks(t, ids) {
    for (const id of ids) {
      const n = nodeById.get(id);
      const tr = el('tr', { class: 'jump', 'data-id': id });
      tr.appendChild(el('td', null, n.i.label)); tr.appendChild(el('td', null, fmtT(n.i.active_time)));
      tr.addEventListener('click', () => focusNode(n, true));
      t.appendChild(tr);
    }
  }
  function inspectGroup(g) {
    select(g);
    insp.textContent = '';
    insp.dataset.id = g.key; insp.dataset.kind = 'class';
    insp.appendChild(el('h3', null, g.cls));
    const t = el('table');
    kv(t, 'instances (whole run)', NF[0].format(g.row.instances), 'instances', g.row.instances);
    kv(t, 'of them drawn', g.members.length < g.row.instances ? g.members.length + ' (the most active: ' + pct(g.members.length / Math.max(1, g.row.instances)) + ' of them)' : 'all', 'drawn', g.members.length);
    kv(t, 'work time', fmtT(g.i.active_time), 'active_time', g.i.active_time);
    kv(t, 'share of busy time', pct(g.i.level), 'level', g.i.level);
    kv(t, 'messages received', NF[0].format(g.row.messages), 'messages', g.row.messages);
    kv(t, 'rank among classes', groupRank.get(g.key), 'rank');
    insp.appendChild(t);
    if (g.members.length) insp.appendChild(button('expand into its ' + (g.members.length < g.row.instances ? g.members.length + ' drawn ' : '') + 'instances', () => expand(g.cls, true), { id: 'inspector-expand' }));
    else insp.appendChild(el('p', { class: 'muted' }, 'none of its instances is among the drawn ones'));
    insp.appendChild(el('h4', null, 'Most active instances'));
    const tt = el('table');
    neighbourLinks(tt, g.members.slice().sort((a, b) => b.i.active_time - a.i.active_time).slice(0, 20).map((n) => n.id));
    insp.appendChild(tt);
  }
  function inspectNode(n) {
    select(n);
    const i = n.i;
    insp.textContent = '';
    insp.dataset.id = i.id; insp.dataset.kind = 'instance';
    insp.appendChild(el('h3', { class: 'band-' + i.band }, i.label));
    const t = el('table');
    kv(t, 'name', i.label, 'name');
    kv(t, 'class', i.class || (i.kind === 'root' ? '(thread root)' : ''), 'class');
    kv(t, 'ID', i.kind === 'root' ? 'thread ' + i.tid : i.oid, 'oid');
    kv(t, 'kind', i.kind, 'kind');
    kv(t, 'size', i.size === null ? null : i.size.toLocaleString('en') + ' B', 'size');
    kv(t, 'work time', fmtT(i.active_time), 'active_time', i.active_time);
    if (i.waiting) kv(t, 'waiting (off the CPU, not work)', fmtT(i.waiting), 'waiting', i.waiting);
    kv(t, 'share of total', pct(i.level), 'level');
    kv(t, 'thesis band', BAND_TEXT[i.band], 'band');
    kv(t, 'rank', instRank.get(i.id) || null, 'rank');
    kv(t, 'messages received / sent', i.received.toLocaleString('en') + ' / ' + i.sent.toLocaleString('en'), 'messages');
    kv(t, 'neighbours', i.neighbours, 'neighbours');
    kv(t, 'bytes received', i.received_bytes, 'bytes');
    if (i.cyclic) kv(t, 'cyclic (to itself)', i.cyclic);
    insp.appendChild(t);
    const row = el('div', { class: 'row' });
    row.appendChild(button('hide its messages', () => addFilter('instance', String(i.id)), { id: 'inspector-hide-instance' }));
    if (i.class) row.appendChild(button('hide class ' + i.class, () => addFilter('class', i.class), { id: 'inspector-hide-class' }));
    insp.appendChild(row);
    const nb = new Set();
    for (const e of n.out) nb.add(e.receiver);
    for (const e of n.inn) nb.add(e.sender);
    nb.delete(i.id);
    if (nb.size) {
      insp.appendChild(el('h4', null, 'Neighbours (click to go there)'));
      const tt = el('table', { class: 'neighbours' });
      neighbourLinks(tt, [...nb].sort((a, b) => inst.get(b).active_time - inst.get(a).active_time).slice(0, 30));
      insp.appendChild(tt);
    }
    const ls = [];
    for (const e of n.out.concat(n.inn)) for (const l of e.links) ls.push(l);
    ls.sort((a, b) => b.net - a.net || a.key.localeCompare(b.key));
    insp.appendChild(el('h4', null, 'Its messages (' + ls.length + ' kinds, by time)'));
    insp.appendChild(linkTable(ls.slice(0, 200)));
    const ms = D.messages.filter((m) => m.sender === i.id || m.receiver === i.id);
    if (ms.length) {
      insp.appendChild(el('h4', null, 'Messages in order' + (ms.length > 100 ? ' (first 100 of ' + ms.length + ')' : '')));
      insp.appendChild(messageTable(ms.slice(0, 100)));
    }
  }
  function inspectEdge(e) {
    select(e);
    insp.textContent = '';
    insp.dataset.id = e.key; insp.dataset.kind = 'edge';
    const nm = (x) => x.i.label;
    insp.appendChild(el('h3', { class: 'band-' + (e.band || 'rest') }, nm(e.sn) + ' → ' + nm(e.rn)));
    const t = el('table');
    kv(t, 'calls', e.calls.toLocaleString('en'), 'calls', e.calls);
    kv(t, 'net time', fmtT(e.net_time), 'active_time', e.net_time);
    kv(t, 'aggregate time', fmtT(e.aggregate_time), null, e.aggregate_time);
    if (e.level !== undefined) kv(t, 'share of total', pct(e.level), 'level');
    kv(t, 'rank', edgeRank.get(e.key) || null, 'rank');
    kv(t, 'bytes', e.bytes.toLocaleString('en'));
    kv(t, 'time per byte', fmtT(e.aggregate_time / Math.max(1, e.bytes)), 'grain');
    insp.appendChild(t);
    insp.appendChild(el('h4', null, 'Messages'));
    insp.appendChild(linkTable(e.links.slice().sort((a, b) => b.net - a.net).slice(0, 200)));
  }
  function linkTable(ls) {
    const t = el('table', { class: 'links' });
    const h = el('tr');
    for (const c of ['sender → receiver', 'method', 'calls', 'net', '']) h.appendChild(el('th', null, c));
    t.appendChild(h);
    for (const l of ls) {
      const tr = el('tr', { 'data-link': l.key });
      const who = el('td', { class: 'jump' }, label(l.s) + ' → ' + label(l.r));
      who.addEventListener('click', () => { const n = nodeById.get(l.r); if (n) focusNode(n, true); });
      tr.appendChild(who);
      tr.appendChild(el('td', null, methodName(l.m)));
      tr.appendChild(el('td', null, l.calls));
      tr.appendChild(el('td', { 'data-v': l.net }, fmtT(l.net)));
      const td = el('td');
      td.appendChild(button('hide', () => addFilter('message', l.key), { class: 'hide-link' }));
      tr.appendChild(td);
      t.appendChild(tr);
    }
    return t;
  }
  function messageTable(ms) {
    const t = el('table');
    const h = el('tr');
    for (const c of ['#', 'method', 'from → to', 'net', 'agg']) h.appendChild(el('th', null, c));
    t.appendChild(h);
    for (const m of ms) {
      const tr = el('tr');
      for (const v of [m.order, methodName(m.method), label(m.sender) + ' → ' + label(m.receiver), fmtT(m.net_time), fmtT(m.aggregate_time)]) tr.appendChild(el('td', null, v));
      t.appendChild(tr);
    }
    return t;
  }

  // ---------- filtering ----------
  const filters = { message: new Set(), instance: new Set(), method: new Set(), class: new Set() };
  const instHidden = (id) => {
    if (filters.instance.has(String(id))) return true;
    if (allowed && !allowed.has(id)) return true;
    const i = inst.get(id);
    return !!(i && i.class && filters.class.has(i.class));
  };
  const linkVisible = (l) => !filters.message.has(l.key) && !filters.method.has(String(l.m)) && !instHidden(l.s) && !instHidden(l.r);
  function filterLabel(kind, v) {
    if (kind === 'message') { const l = links.find((x) => x.key === v); return l ? label(l.s) + ' → ' + label(l.r) + ': ' + methodName(l.m) : v; }
    if (kind === 'instance') return label(+v) + "'s messages";
    if (kind === 'method') return methodName(+v) + ' (all invocations)';
    return 'class ' + v;
  }
  function fillTargets() {
    const kind = $('filter-kind').value, sel = $('filter-target');
    sel.textContent = '';
    let opts = [];
    if (kind === 'message') opts = links.slice().sort((a, b) => b.calls - a.calls || a.key.localeCompare(b.key)).map((l) => [l.key, label(l.s) + ' → ' + label(l.r) + ': ' + methodName(l.m) + ' ×' + l.calls]);
    else if (kind === 'instance') opts = D.instances.map((i) => [String(i.id), i.label]);
    else if (kind === 'method') opts = D.methods.filter((m) => m.calls > 0).map((m) => [String(m.id), m.class + '.' + m.method + shownSig(m) + ' ×' + m.calls]);
    else opts = D.classes.map((c) => [c.class, c.class + ' (' + c.instances + ')']);
    for (const [v, t] of opts) sel.appendChild(el('option', { value: v }, t));
  }
  function addFilter(kind, v) {
    filters[kind].add(String(v));
    applyFilters();
  }
  function groupEdge(sn, rn) {
    const key = sn.key + '>' + rn.key;
    let ge = groupEdges.get(key);
    if (!ge) {
      ge = { key, sender: sn.key, receiver: rn.key, sn, rn, group: true, links: [], members: [], calls: 0, net_time: 0, aggregate_time: 0, bytes: 0 };
      edgeElement(ge, sn.i.label + ' → ' + rn.i.label);
      groupEdges.set(key, ge);
    }
    return ge;
  }
  // The class view takes its edges from the whole run's class graph unless a filter that the
  // aggregates cannot apply (a message, method or instance hidden) is on.
  const exactClasses = () => state.view === 'classes' && !filters.message.size && !filters.method.size && !filters.instance.size;
  // A class-graph node as it is drawn now (null when its class was expanded by hand or hidden).
  const cgNode = (key) => {
    const n = nodeByKey.get(key);
    if (!n) return null;
    const cls = n.group ? n.cls : n.i.class;
    if (cls && filters.class.has(cls)) return null;
    if (n.group && state.expanded.has(n.cls)) return null;
    return n;
  };
  const cgCovers = (e) => cgNode(cgKey(e.sn)) === display(e.sn) && cgNode(cgKey(e.rn)) === display(e.rn);
  function classGraphEdges(used) {
    let calls = 0;
    for (const c of (D.class_graph && D.class_graph.edges) || []) {
      const sn = cgNode(c.from), rn = cgNode(c.to);
      if (!sn || !rn || c.calls <= 0) continue;
      const ge = groupEdge(sn, rn);
      ge.calls = c.calls; ge.net_time = c.net_time; ge.aggregate_time = c.aggregate_time; ge.bytes = c.bytes;
      ge.exact = true; ge.visible = true; sn.visible = true; rn.visible = true;
      calls += c.calls;
    }
    return calls;
  }
  function applyFilters() {
    filterGen++;
    const list = $('filter-list');
    list.textContent = '';
    for (const kind of Object.keys(filters)) for (const v of filters[kind]) {
      const li = el('li', { 'data-kind': kind, 'data-value': v }, filterLabel(kind, v));
      li.appendChild(button('show', () => { filters[kind].delete(v); applyFilters(); }));
      list.appendChild(li);
    }
    for (const ge of groupEdges.values()) { ge.calls = 0; ge.net_time = 0; ge.aggregate_time = 0; ge.bytes = 0; ge.links = []; ge.visible = false; ge.exact = false; }
    for (const n of nodes) n.visible = false;
    for (const g of groups.values()) g.visible = false;
    let visEdges = 0, visMsgs = 0;
    const used = [];
    const exact = exactClasses();
    if (exact) visMsgs += classGraphEdges(used);
    for (const e of edges) {
      if (exact && cgCovers(e)) { e.visible = false; e.g.classList.add('hidden'); continue; }
      let calls = 0;
      for (const l of e.links) if (linkVisible(l)) calls += l.calls;
      if (e.other > 0 && !instHidden(e.sender) && !instHidden(e.receiver)) calls += e.other;
      e.visibleCalls = calls;
      const ds = display(e.sn), dr = display(e.rn);
      const own = ds === e.sn && dr === e.rn;
      e.visible = own && calls > 0;
      e.g.classList.toggle('hidden', !e.visible);
      e.count = '×' + calls;
      if (calls > 0) {
        visMsgs += calls;
        ds.visible = true; dr.visible = true;
        if (own) { visEdges++; used.push(e); } else {
          const ge = groupEdge(ds, dr);
          const f = calls / Math.max(1, e.calls);
          ge.calls += calls; ge.net_time += Math.round(e.net_time * f); ge.aggregate_time += Math.round(e.aggregate_time * f); ge.bytes += Math.round(e.bytes * f);
          for (const l of e.links) ge.links.push(l);
          ge.visible = true;
        }
      }
    }
    for (const ge of groupEdges.values()) {
      ge.g.classList.toggle('hidden', !ge.visible);
      ge.count = '×' + ge.calls;
      ge.g.dataset.calls = ge.calls;
      ge.g.dataset.exact = ge.exact ? '1' : '0';
      if (ge.visible) { visEdges++; used.push(ge); }
    }
    let visNodes = 0;
    shownNodes = [];
    for (const n of nodes.concat([...groups.values()])) {
      n.g.classList.toggle('hidden', !n.visible);
      if (n.visible) { visNodes++; shownNodes.push(n); }
    }
    shownEdges = used;
    // Past NODE_CANVAS nodes the nodes are painted on the canvas too (over the edges).
    const canvasNodes = visNodes > NODE_CANVAS;
    svg.classList.toggle('canvas-nodes', canvasNodes);
    svg.classList.toggle('canvas-edges', canvasNodes || used.length > EDGE_CANVAS);
    // An unused canvas is no layer to composite in every gesture frame.
    ec.style.display = canvasNodes || used.length > EDGE_CANVAS ? '' : 'none';
    for (const g of groups.values()) { g.out = used.filter((e) => e.sn === g); g.inn = used.filter((e) => e.rn === g && e.sn !== g); }
    styleEdges(used);
    colourNodes();
    legend();
    const vc = $('visible-count');
    vc.dataset.instances = visNodes; vc.dataset.edges = visEdges; vc.dataset.messages = visMsgs;
    const what = state.view === 'classes' ? ' nodes (classes and expanded instances), ' : ' instances, ';
    vc.textContent = visNodes + what + visEdges + ' edges, ' + visMsgs.toLocaleString('en') + ' messages visible';
    vc.dataset.exact = exact ? '1' : '0';
    if (state.view === 'classes' && !exact) vc.textContent += ' (class edges: drawn instances only while filters are on)';
    applyHighlight();
  }
  $('filter-kind').addEventListener('change', fillTargets);
  $('filter-add').addEventListener('click', () => { const v = $('filter-target').value; if (v) addFilter($('filter-kind').value, v); });
  $('filter-clear').addEventListener('click', () => { for (const k in filters) filters[k].clear(); applyFilters(); });

  // ---------- search ----------
  (function search() {
    const box = $('search'), out = $('search-results');
    const items = [];
    for (const i of D.instances) items.push({ kind: 'instance', text: i.label, go: () => focusNode(nodeById.get(i.id), true), act: i.active_time });
    for (const g of groups.values()) items.push({ kind: 'class', text: g.cls, go: () => { if (state.view === 'classes' && !state.expanded.has(g.cls)) focusNode(g, true); else expand(g.cls, true); }, act: g.i.active_time });
    for (const m of D.methods) if (m.calls > 0) items.push({ kind: 'method', text: m.class + '.' + m.method, go: () => focusHint({ method: m.id }), act: m.net_time.total });
    let hits = [];
    const render = () => {
      const q = box.value.trim().toLowerCase();
      out.textContent = '';
      if (!q) { out.hidden = true; return; }
      hits = items.filter((x) => x.text.toLowerCase().includes(q)).sort((a, b) => (b.text.toLowerCase() === q) - (a.text.toLowerCase() === q) || b.act - a.act).slice(0, 20);
      for (const h of hits) {
        const li = el('li', { 'data-kind': h.kind }, h.text);
        li.prepend(el('span', { class: 'kind' }, h.kind));
        li.addEventListener('mousedown', (ev) => { ev.preventDefault(); out.hidden = true; h.go(); });
        out.appendChild(li);
      }
      out.dataset.count = hits.length;
      out.hidden = hits.length === 0;
    };
    box.addEventListener('input', render);
    box.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' && hits.length) { out.hidden = true; hits[0].go(); } if (ev.key === 'Escape') out.hidden = true; });
    box.addEventListener('blur', () => { out.hidden = true; });
  })();

  // ---------- highlighting ----------
  const numIn = (id) => { const v = $(id).value.trim(); return v === '' ? null : Number(v); };
  function meets(time, level, rank, t, l, r) {
    return (t !== null && time >= t) || (l !== null && level * 100 >= l) || (r !== null && rank <= r);
  }
  function applyHighlight() {
    const it = numIn('hl-inst-time'), il = numIn('hl-inst-level'), ir = numIn('hl-inst-rank');
    const mt = numIn('hl-msg-time'), ml = numIn('hl-msg-level'), mr = numIn('hl-msg-rank');
    let ni = 0, nm = 0;
    for (const n of nodes) {
      const rank = instRank.get(n.id) || Infinity;
      const on = n.i.kind !== 'root' && meets(n.i.active_time, n.i.level, rank, it, il, ir);
      n.g.classList.toggle('hl', on);
      if (on && n.visible) ni++;
    }
    for (const e of edges) {
      const on = meets(e.net_time, e.level, edgeRank.get(e.key), mt, ml, mr);
      e.g.classList.toggle('hl', on);
      if (on && e.visible) nm++;
    }
    const hc = $('highlight-count');
    hc.dataset.instances = ni; hc.dataset.messages = nm;
    hc.textContent = ni + ' instance' + (ni === 1 ? '' : 's') + ', ' + nm + ' message' + (nm === 1 ? '' : 's') + ' highlighted';
  }
  for (const id of ['hl-inst-time', 'hl-inst-level', 'hl-inst-rank', 'hl-msg-time', 'hl-msg-level', 'hl-msg-rank']) $(id).addEventListener('input', applyHighlight);
  $('hl-clear').addEventListener('click', () => {
    for (const id of ['hl-inst-time', 'hl-inst-level', 'hl-inst-rank', 'hl-msg-time', 'hl-msg-level', 'hl-msg-rank']) $(id).value = '';
    applyHighlight();
  });

  // ---------- animation: messages in start order, or in time (overlap shows) ----------
  const anim = { pos: -1, timer: null, cur: [], t: null, raf: null };
  const msgs = D.messages;
  // Cached per filter state (the timeline asks for every slice in every frame).
  let filterGen = 0;
  const msgVisible = (m) => {
    if (m.visGen !== filterGen) { m.visGen = filterGen; m.vis = linkVisible({ s: m.sender, r: m.receiver, m: m.method, key: m.sender + '>' + m.receiver + ':' + m.method }); }
    return m.vis;
  };
  // The drawn edge carrying a message (its instance edge or its classes' edge).
  const drawnEdge = (m) => {
    const s = nodeById.get(m.sender), r = nodeById.get(m.receiver);
    if (!s || !r) return null;
    const ds = display(s), dr = display(r);
    return ds === s && dr === r ? edgeByKey.get(m.sender + '>' + m.receiver) : groupEdges.get(ds.key + '>' + dr.key);
  };
  function clearActive() { for (const g of anim.cur) g.classList.remove('active'); anim.cur = []; }
  function showStep() {
    clearActive();
    const box = $('anim-step');
    $('anim-pos').textContent = (anim.pos + 1) + ' / ' + msgs.length;
    if (anim.pos < 0 || anim.pos >= msgs.length) { box.textContent = ''; delete box.dataset.order; return; }
    const m = msgs[anim.pos];
    const e = drawnEdge(m), r = nodeById.get(m.receiver);
    if (e) { e.g.classList.add('active'); anim.cur.push(e.g); }
    if (r) { display(r).g.classList.add('active'); anim.cur.push(display(r).g); }
    box.dataset.order = m.order; box.dataset.index = anim.pos;
    box.textContent = 'message ' + m.order + ': ' + methodName(m.method) + '  ' + label(m.sender) + ' → ' + label(m.receiver) + '  (' + fmtT(m.aggregate_time) + ')';
  }
  function step(dir) {
    let p = anim.pos;
    do { p += dir; } while (p >= 0 && p < msgs.length && !msgVisible(msgs[p]));
    if (p < 0 || p >= msgs.length) return false;
    anim.pos = p; showStep(); return true;
  }
  const speed = () => Number($('anim-speed').value);
  function tick() { if (!step(1)) { stop(); return; } anim.timer = setTimeout(tick, 1000 / speed()); }
  function stop() {
    clearTimeout(anim.timer); anim.timer = null; $('anim-play').textContent = 'Play';
    if (anim.raf) cancelAnimationFrame(anim.raf);
    anim.raf = null; $('anim-time').textContent = 'Play in time';
  }
  $('anim-play').addEventListener('click', () => {
    if (anim.timer) { stop(); return; }
    stop();
    $('anim-play').textContent = 'Pause';
    if (anim.pos >= msgs.length - 1) anim.pos = -1;
    tick();
  });
  // In time: a cursor sweeps the span (20 s at speed 4); every message open at the cursor
  // is lit, so concurrent messages on different threads light up together.
  function showTime(t) {
    clearActive();
    let open = 0;
    for (const m of msgs) {
      if (m.start > t || m.end < t || !msgVisible(m)) continue;
      open++;
      const e = drawnEdge(m);
      if (e && !e.g.classList.contains('active')) { e.g.classList.add('active'); anim.cur.push(e.g); }
    }
    const box = $('anim-step');
    box.dataset.time = t; box.dataset.open = open;
    box.textContent = 't = ' + fmtT(t - D.span[0]) + ': ' + open + ' message' + (open === 1 ? '' : 's') + ' in flight';
    timeline.cursor = t; timeline.draw();
  }
  $('anim-time').addEventListener('click', () => {
    if (anim.raf) { stop(); return; }
    stop();
    $('anim-time').textContent = 'Pause';
    if (anim.t === null || anim.t >= D.span[1]) anim.t = D.span[0];
    let last = performance.now();
    const frame = (now) => {
      anim.t += (now - last) / 1000 * span / 20 * speed() / 4; last = now;
      if (anim.t > D.span[1]) { anim.t = D.span[1]; showTime(anim.t); stop(); return; }
      showTime(anim.t);
      anim.raf = requestAnimationFrame(frame);
    };
    anim.raf = requestAnimationFrame(frame);
  });
  $('anim-next').addEventListener('click', () => step(1));
  $('anim-prev').addEventListener('click', () => step(-1));
  $('anim-reset').addEventListener('click', () => { stop(); anim.pos = -1; anim.t = null; showStep(); });
  const showSpeed = () => { $('anim-speed-value').textContent = speed() + ' messages/s'; };
  $('anim-speed').addEventListener('input', showSpeed);

  // ---------- timeline: every message of every thread, one row per depth ----------
  // Like Perfetto: wheel or W/S zoom at the pointer, drag or A/D pan, hover names a slice,
  // click selects it (its sends drawn as flows). Drawing is coalesced into one animation
  // frame; lanes are as tall as the depths their messages use.
  const timeline = (function () {
    const cv = $('timeline');
    const ctx = cv.getContext('2d');
    const tip = $('timeline-tip');
    const tids = D.threads.map((t) => t.tid);
    const laneOf = new Map(tids.map((t, k) => [t, k]));
    const ROW = 14, COMPACT = 3, GAP = 5, AXIS = 16, LEFT = 110, RIGHT = 10;
    const LOD = D.timeline || { columns: [], threads: [] };
    const lodOf = new Map(LOD.threads.map((t) => [t.tid, t]));
    const tl = { t0: D.span[0], t1: Math.max(D.span[1], D.span[0] + 1), cursor: null, drawn: 0, selected: null, hover: null };
    const byStart = msgs.slice().sort((a, b) => a.start - b.start);
    const perLane = tids.map(() => []);
    for (const m of byStart) if (laneOf.has(m.tid)) perLane[laneOf.get(m.tid)].push(m);
    // Compact lanes: one row per depth used (the summaries' rows: every message; deeper ones
    // than the last row lie inside its messages and share it).
    const rowsOf = tids.map((t, k) => Math.max(lodOf.has(t) ? lodOf.get(t).rows.length : 0, perLane[k].length ? 1 : 0));
    // Expanded lanes have 14 px rows (names on slices); compact ones 3 px rows (the busy
    // pixels only), so 16 threads of 12 depths fit a 1000 px window. A click on a thread's
    // name switches its lane. All lanes start expanded when they fit, else compact.
    const avail = () => Math.round(0.7 * (window.innerHeight || 1000)) - AXIS;
    const expanded = tids.map(() => true);
    const rowH = (k) => expanded[k] ? ROW : COMPACT;
    const laneH = [], laneTop = [0];
    let TOTAL_H = 0;
    const stack = () => {
      laneTop.length = 1;
      tids.forEach((_, k) => { laneH[k] = Math.max(rowH(k) * rowsOf[k], expanded[k] ? 0 : 12) + GAP; laneTop.push(laneTop[k] + laneH[k]); });
      TOTAL_H = laneTop[tids.length];
    };
    stack();
    if (TOTAL_H > avail()) { expanded.fill(false); stack(); }
    const box = $('timeline-scroll'), spacer = $('timeline-spacer');
    let top = 0, viewH = 0;
    const laneY = (k) => AXIS + laneTop[k] - top;
    const rowY = (m) => { const k = laneOf.get(m.tid); return laneY(k) + rowH(k) * Math.min(m.depth, rowsOf[k] - 1); };
    const cls = (m) => method(m.method).class;
    const hue = (s) => { let h = 7; for (const c of s) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0; return Math.round((h % 97) * 137.5) % 360; };
    // A class's colour at a lightness, built once (a frame fills thousands of columns).
    const colours = new Map();
    const colour = (c, light) => {
      const k = c + '\u0000' + light;
      let v = colours.get(k);
      if (!v) { v = 'hsl(' + hue(c) + ',55%,' + light + '%)'; colours.set(k, v); }
      return v;
    };
    function size() {
      cv.width = cv.clientWidth || 1000;
      // The lanes fit up to 70 % of the window; the rest scroll under the sticky canvas.
      viewH = Math.min(TOTAL_H, Math.max(4 * ROW + GAP, avail()));
      cv.height = AXIS + viewH + 4;
      // The lanes layer after the canvas's new height (sized before, it kept the old one and
      // cut off the lanes below it).
      lanesCv.width = cv.width; lanesCv.height = cv.height; cache.valid = false;
      spacer.style.height = Math.max(0, TOTAL_H - viewH) + 'px';
      box.style.maxHeight = cv.height + 2 + 'px';
      note();
    }
    const X = (t) => LEFT + (t - tl.t0) / (tl.t1 - tl.t0) * (cv.width - LEFT - RIGHT);
    const T = (px) => tl.t0 + (px - LEFT) / (cv.width - LEFT - RIGHT) * (tl.t1 - tl.t0);
    const lanesInView = () => {
      let k0 = 0;
      while (k0 < tids.length && laneTop[k0 + 1] <= top) k0++;
      let k1 = k0;
      while (k1 < tids.length && laneTop[k1] < top + viewH) k1++;
      return [k0, k1];
    };
    let queued = false, gestureOnly = true;
    // Zoom, pan and scroll only change the view and ask for a frame; one draw per frame.
    // `gesture`: wheel, keys or drag (drawn from the lanes layer, see gestureFrame).
    tl.request = (gesture) => {
      if (!gesture) gestureOnly = false;
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; const gst = gestureOnly; gestureOnly = true; gestureFrame(gst); });
    };
    box.addEventListener('scroll', () => { top = box.scrollTop; tl.request(); });
    // Every row is drawn from the summaries: the finest level whose columns are at most a
    // pixel wide (else the finest there is); each column's height is its busy share, waiting
    // drawn grey on top. Per row, the busy pixels drawn (busy time × pixels per time unit) go
    // in a data attribute (the top rows' also per thread).
    function overviewLevel() {
      const per = (tl.t1 - tl.t0) / (cv.width - LEFT - RIGHT), span = Math.max(1, LOD.t1 - LOD.t0);
      const lv = LOD.columns.findIndex((n) => span / n <= per);
      return lv < 0 ? LOD.columns.length - 1 : lv;
    }
    // Each row's columns at a level, packed once into typed arrays with their colour's index
    // in a palette (RGBA words for the pixels).
    const palette = [], paletteOf = new Map(), packed = new Map();
    const rgba = (r, g, b) => (255 << 24 | b << 16 | g << 8 | r) >>> 0; // ImageData's byte order
    const hslWord = (h, s, l) => {
      const a = s * Math.min(l, 1 - l), f = (n) => { const k = (n + h / 30) % 12; return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1)))); };
      return rgba(f(0), f(8), f(4));
    };
    const paletteIdx = (c) => {
      let k = paletteOf.get(c);
      if (k === undefined) { k = palette.length; palette.push(hslWord(hue(c), 0.55, 0.58)); paletteOf.set(c, k); }
      return k;
    };
    function pack(th, d, lv) {
      const key = th.tid + ':' + d + ':' + lv;
      let p = packed.get(key);
      if (p) return p;
      // Flat: column step, busy, waiting, method of each filled column.
      const cs = th.rows[d].levels[lv], n = cs.length >> 2;
      p = { col: new Float64Array(n), busy: new Float64Array(n), wait: new Float64Array(n), meth: new Uint32Array(n), ci: new Uint16Array(n) };
      for (let j = 0, at = 0; j < n; j++) {
        at += cs[4 * j];
        p.col[j] = at; p.busy[j] = cs[4 * j + 1]; p.wait[j] = cs[4 * j + 2]; p.meth[j] = cs[4 * j + 3]; p.ci[j] = paletteIdx(method(p.meth[j]).class);
      }
      packed.set(key, p);
      return p;
    }
    // The rows are written pixel by pixel into one reused ImageData for the lanes' area:
    // each pixel column of a row gets the busy and waiting time of the level's columns under
    // it (split by overlap) and the colour of the busiest of them; then one putImageData. No
    // path is rasterised, whatever the zoom (thousands of small rectangles a frame were most
    // of the timeline's frame time).
    let img = null, busyAt = null, waitAt = null, bestAt = null, ciAt = null, hbAt = null, hwAt = null;
    const BG = [rgba(0xe8, 0xec, 0xee), rgba(0xf3, 0xf5, 0xf6)], GREY = rgba(0x9e, 0x9e, 0x9e);
    // One row's pixels at `y0` (rows of the image), pixel columns xa..xb only; returns its
    // busy pixels there.
    function drawRow(px32, W, H, y0, p, lv, xa, xb) {
      const colT = Math.max(1, LOD.t1 - LOD.t0) / LOD.columns[lv], per = (tl.t1 - tl.t0) / W, n = p.col.length;
      const ta = tl.t0 + xa * per, tb = tl.t0 + xb * per;
      const c0 = Math.floor((ta - LOD.t0) / colT) - 1;
      busyAt.fill(0, xa, xb); waitAt.fill(0, xa, xb); bestAt.fill(0, xa, xb);
      let lo = 0, hi = n;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (p.col[mid] < c0) lo = mid + 1; else hi = mid; }
      let px = 0;
      for (let j = lo; j < n; j++) {
        const a = LOD.t0 + p.col[j] * colT, b = a + colT;
        if (a > tb) break;
        if (b < ta) continue;
        const x0 = Math.max(xa, (a - tl.t0) / per), x1 = Math.min(xb, (b - tl.t0) / per);
        if (x1 <= x0) continue;
        const busy = p.busy[j], wait = p.wait[j], ci = p.ci[j], width = (b - a) / per;
        px += (x1 - x0) * busy / colT; // unclipped: integer columns can be a unit wider
        for (let x = Math.floor(x0); x < x1 && x < xb; x++) {
          const o = (Math.min(x1, x + 1) - Math.max(x0, x)) / width, bt = busy * o;
          busyAt[x] += bt; waitAt[x] += wait * o;
          if (bt > bestAt[x]) { bestAt[x] = bt; ciAt[x] = ci; }
        }
      }
      // Per pixel column: the busy height and its waiting part, then the image row by row.
      for (let x = xa; x < xb; x++) {
        const f = Math.min(1, busyAt[x] / per), hb = busyAt[x] > 0 ? Math.max(1, Math.round(H * f)) : 0;
        hbAt[x] = hb; hwAt[x] = Math.min(hb, Math.round(H * Math.min(f, waitAt[x] / per)));
      }
      const r0 = Math.max(0, -y0), r1 = Math.min(H, img.height - y0);
      for (let r = r0; r < r1; r++) {
        const up = H - 1 - r, o = (y0 + r) * W; // pixels above the row's bottom
        for (let x = xa; x < xb; x++) { const hb = hbAt[x]; if (up < hb) px32[o + x] = up >= hb - hwAt[x] ? GREY : palette[ciAt[x]]; }
      }
      return px;
    }
    // The rows of lanes k0..k1 into the lanes layer, pixel columns xa..xb of the lanes' width
    // (all of it on a full draw; the strip a pan uncovered otherwise).
    function drawRows(k0, k1, xa, xb) {
      if (!LOD.columns.length || k1 <= k0) return;
      // As tall as the lanes in view (the image is written and put whole every frame).
      const lv = overviewLevel(), W = Math.max(1, cv.width - LEFT - RIGHT);
      const Hc = Math.max(1, Math.min(cv.height - AXIS, laneY(k1 - 1) + laneH[k1 - 1] - AXIS));
      if (!img || img.width !== W || img.height !== Hc) {
        img = g.createImageData(W, Hc);
        busyAt = new Float64Array(W); waitAt = new Float64Array(W); bestAt = new Float64Array(W); ciAt = new Uint16Array(W);
        hbAt = new Int32Array(W); hwAt = new Int32Array(W);
      }
      xa = Math.max(0, Math.floor(xa)); xb = Math.min(W, Math.ceil(xb));
      if (xb <= xa) return;
      const px32 = new Uint32Array(img.data.buffer), full = xa === 0 && xb === W;
      if (full) px32.fill(0); else for (let y = 0; y < Hc; y++) px32.fill(0, y * W + xa, y * W + xb);
      const busyPx = [], rowPx = [];
      for (let k = k0; k < k1; k++) {
        const th = lodOf.get(tids[k]), bg = BG[k % 2], yl = laneY(k) - AXIS, h = rowH(k);
        // The lane's background (rows without messages included).
        for (let y = Math.max(0, yl); y < Math.min(Hc, yl + laneH[k] - GAP); y++) px32.fill(bg, y * W + xa, y * W + xb);
        if (!th) continue;
        th.rows.forEach((row, d) => {
          const px = drawRow(px32, W, expanded[k] ? ROW - 2 : COMPACT - 1, yl + d * h + (expanded[k] ? 1 : 0), pack(th, d, lv), lv, xa, xb);
          rowPx.push(tids[k] + ':' + d + ':' + px.toFixed(1));
          if (d === 0) busyPx.push(tids[k] + ':' + px.toFixed(1));
        });
      }
      g.putImageData(img, LEFT, AXIS, xa, 0, xb - xa, Hc);
      if (!full) return;
      cv.dataset.level = lv;
      cv.dataset.busyPx = busyPx.join(' ');
      cv.dataset.rowPx = rowPx.join(' ');
    }
    // Round ticks: 1, 2 or 5 × 10^k nanoseconds, about every 100 px, labelled from the run's start.
    function ticks() {
      const w = cv.width - LEFT - RIGHT, spanNs = (tl.t1 - tl.t0) * NS_PER;
      const raw = spanNs / Math.max(1, w / 100), p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
      const stepNs = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
      const [div, u] = stepNs >= 1e9 ? [1e9, 's'] : stepNs >= 1e6 ? [1e6, 'ms'] : stepNs >= 1e3 ? [1e3, 'µs'] : [1, 'ns'];
      const digits = Math.max(0, -Math.floor(Math.log10(stepNs / div) + 1e-9));
      const out = [];
      const from = Math.ceil((tl.t0 - D.span[0]) * NS_PER / stepNs);
      for (let k = from; ; k++) {
        const t = D.span[0] + k * stepNs / NS_PER;
        if (t > tl.t1) break;
        out.push([t, (k * stepNs / div).toFixed(digits) + ' ' + u]);
      }
      return out;
    }
    let named = 0;
    // A slice's box on the canvas: [x, y, width, height].
    const box4 = (m) => {
      const x0 = Math.max(LEFT, X(m.start)), x1 = Math.min(cv.width - RIGHT, X(m.end)), k = laneOf.get(m.tid);
      return [x0, rowY(m), Math.max(1, x1 - x0), rowH(k) - 1, expanded[k]];
    };
    // One highlighted slice (selection, hover, sends), drawn over the lanes.
    function drawSlice(m, hl) {
      drawSlices([m]);
      const [x0, y, w, h] = box4(m);
      g.strokeStyle = hl; g.lineWidth = 2; g.strokeRect(x0 + 1, y + 1, w - 2 > 0 ? w - 2 : w, h - 2);
    }
    // Slices in one batch: a path per colour, one for the waiting parts, then the names.
    function drawSlices(list) {
      const fills = new Map(), waits = new Path2D(), names = [];
      for (const m of list) {
        const [x0, y, w, h, big] = box4(m);
        if (!m.fills) m.fills = [colour(cls(m), 58), colour(cls(m), 88)];
        const f = m.fills[msgVisible(m) ? 0 : 1];
        let p = fills.get(f);
        if (!p) { p = new Path2D(); fills.set(f, p); }
        p.rect(x0, y, w, h);
        // Waiting off the CPU is its own state: its share of the slice drawn grey (top part).
        const dur = m.end - m.start;
        if (m.waiting > 0 && dur > 0) waits.rect(x0, y, w, h * Math.min(1, m.waiting / dur));
        if (big && w > 36) {
          const name = method(m.method).method, max = Math.floor((w - 4) / 6.2);
          if (max >= 3) names.push([name.length > max ? name.slice(0, max - 1) + '…' : name, x0 + 2, y + ROW - 4]);
        }
      }
      for (const [f, p] of fills) { g.fillStyle = f; g.fill(p); }
      g.fillStyle = '#9e9e9e'; g.fill(waits);
      g.fillStyle = '#111';
      for (const [t, x, y] of names) g.fillText(t, x, y);
      named += names.length;
    }
    // A selected message's sends (the messages it sent while it ran), as arrows.
    const sendsOf = (m) => byStart.filter((x) => x.parent_order === m.order);
    function drawFlows(m, k0, k1) {
      let n = 0;
      g.strokeStyle = '#e65100'; g.fillStyle = '#e65100'; g.lineWidth = 1.5;
      for (const c of sendsOf(m)) {
        const kc = laneOf.get(c.tid);
        if (kc === undefined || kc < k0 || kc >= k1 || c.end < tl.t0 || c.start > tl.t1) continue;
        const x = Math.max(LEFT, X(c.start)), ya = rowY(m) + rowH(laneOf.get(m.tid)) / 2, yb = rowY(c) + (rowY(c) > ya ? 0 : rowH(kc));
        g.beginPath(); g.moveTo(x, ya); g.bezierCurveTo(x - 12, (ya + yb) / 2, x - 12, (ya + yb) / 2, x, yb); g.stroke();
        const d = yb > ya ? -1 : 1;
        g.beginPath(); g.moveTo(x, yb); g.lineTo(x - 3, yb + 5 * d); g.lineTo(x + 3, yb + 5 * d); g.fill();
        n++;
      }
      return n;
    }
    // The lanes (rows and slices, no highlights) are painted into an offscreen layer at a view
    // (cache.t0..t1); a frame copies it to the canvas and draws names, ticks and highlights
    // over it. During a gesture (wheel, keys, drag) a zoom stretches the layer (redrawn once
    // input has rested 150 ms) and a pan shifts it by whole pixels and paints only the strip
    // it uncovered.
    const lanesCv = document.createElement('canvas'), lctx = lanesCv.getContext('2d');
    const cache = { t0: 0, t1: 1, top: -1, valid: false };
    let g = lctx, rest = null;
    // Rows and slices of lanes k0..k1 over pixel columns xa..xb of the lanes' width.
    function paintLanes(k0, k1, xa, xb) {
      const W = cv.width - LEFT - RIGHT;
      g = lctx;
      lctx.save();
      lctx.beginPath(); lctx.rect(LEFT + xa, AXIS, xb - xa, cv.height - AXIS); lctx.clip();
      lctx.clearRect(LEFT + xa, AXIS, xb - xa, cv.height - AXIS);
      lctx.font = '11px sans-serif';
      if (!LOD.columns.length) for (let k = k0; k < k1; k++) {
        lctx.fillStyle = k % 2 ? '#f3f5f6' : '#e8ecee';
        lctx.fillRect(LEFT, laneY(k), W, laneH[k] - GAP);
      }
      drawRows(k0, k1, xa, xb);
      // The page's messages over their rows (names, hover, click); one narrower than a
      // pixel adds nothing to the row's pixels, which already hold its time.
      const minW = (tl.t1 - tl.t0) / W, ta = tl.t0 + xa * minW, tb = tl.t0 + xb * minW, list = [];
      let drawn = 0;
      for (let k = k0; k < k1; k++) for (const m of perLane[k]) {
        if (m.start > tl.t1) break;
        if (m.end < tl.t0) continue;
        drawn++;
        if (m.start > tb || m.end < ta) continue;
        if (m.end - m.start >= minW || !LOD.columns.length) list.push(m);
      }
      drawSlices(list);
      lctx.restore();
      return drawn;
    }
    tl.draw = function () {
      const t = performance.now();
      clearTimeout(rest); rest = null;
      if (!cv.width) size();
      const [k0, k1] = lanesInView();
      named = 0;
      const drawn = paintLanes(k0, k1, 0, cv.width - LEFT - RIGHT);
      Object.assign(cache, { t0: tl.t0, t1: tl.t1, top, k0, k1, valid: true });
      tl.drawn = drawn;
      cv.dataset.drawn = drawn;
      cv.dataset.names = named;
      overlay(k0, k1, () => ctx.drawImage(lanesCv, 0, 0));
      perf.timeline.push(performance.now() - t);
    };
    // A gesture's frame from the lanes layer (see above); a full draw when it cannot.
    // Without a gesture (hover, selection) only an unchanged view is drawn from the layer.
    function gestureFrame(gesture) {
      const t = performance.now(), W = cv.width - LEFT - RIGHT;
      const [k0, k1] = lanesInView();
      if (!cache.valid || cache.top !== top || cache.k0 !== k0 || cache.k1 !== k1) { tl.draw(); return; }
      const per = (tl.t1 - tl.t0) / W, cper = (cache.t1 - cache.t0) / W;
      if (!gesture && (cache.t0 !== tl.t0 || cache.t1 !== tl.t1)) { tl.draw(); return; }
      let blit;
      if (Math.abs(per - cper) <= 1e-9 * cper) {
        // A pan: shift the layer by whole pixels, paint the uncovered strip at the layer's view.
        const d = Math.round((cache.t0 - tl.t0) / per);
        if (Math.abs(d) >= W) { tl.draw(); return; }
        if (d) {
          lctx.save();
          lctx.beginPath(); lctx.rect(LEFT, AXIS, W, cv.height - AXIS); lctx.clip();
          lctx.globalCompositeOperation = 'copy';
          lctx.drawImage(lanesCv, d, 0);
          lctx.restore();
          const v = [tl.t0, tl.t1];
          tl.t0 = cache.t0 - d * per; tl.t1 = tl.t0 + W * per;
          paintLanes(k0, k1, d > 0 ? 0 : W + d, d > 0 ? d : W);
          cache.t0 = tl.t0; cache.t1 = tl.t1;
          [tl.t0, tl.t1] = v;
        }
        blit = () => ctx.drawImage(lanesCv, 0, 0);
        // The page's slice count and the rows' pixel figures are the full draw's: once at rest.
        if (d) { clearTimeout(rest); rest = setTimeout(tl.draw, 150); }
      } else {
        // A zoom: the layer stretched about its time axis until input rests.
        const x = X(cache.t0), w = W * cper / per;
        // Stretched without smoothing: columns stay sharp (a blurred zoom read as a bug).
        blit = () => { ctx.save(); ctx.imageSmoothingEnabled = w < W; ctx.beginPath(); ctx.rect(LEFT, AXIS, W, cv.height - AXIS); ctx.clip(); ctx.drawImage(lanesCv, LEFT, AXIS, W, cv.height - AXIS, x, AXIS, w, cv.height - AXIS); ctx.restore(); };
        clearTimeout(rest);
        rest = setTimeout(tl.draw, 150);
      }
      overlay(k0, k1, blit);
      perf.timeline.push(performance.now() - t);
    }
    // Thread names, highlights, flows, ticks and the cursor over the lanes.
    function overlay(k0, k1, blit) {
      ctx.clearRect(0, 0, cv.width, cv.height);
      blit();
      g = ctx;
      ctx.font = '11px sans-serif';
      ctx.save();
      ctx.beginPath(); ctx.rect(0, AXIS, cv.width, cv.height - AXIS); ctx.clip();
      for (let k = k0; k < k1; k++) {
        ctx.fillStyle = '#222';
        ctx.fillText((expanded[k] ? '▾ ' : '▸ ') + (D.threads[k].name || 'thread ' + tids[k]).slice(0, 15), 2, laneY(k) + 11);
      }
      ctx.save();
      ctx.beginPath(); ctx.rect(LEFT, AXIS, cv.width - LEFT - RIGHT, cv.height - AXIS); ctx.clip();
      const sel = tl.selected;
      const selIn = sel && laneOf.has(sel.tid) && laneOf.get(sel.tid) >= k0 && laneOf.get(sel.tid) < k1;
      const n = named;
      if (sel) for (const c of sendsOf(sel)) { const kc = laneOf.get(c.tid); if (kc >= k0 && kc < k1 && c.end >= tl.t0 && c.start <= tl.t1) drawSlice(c, '#e65100'); }
      if (selIn && sel.end >= tl.t0 && sel.start <= tl.t1) drawSlice(sel, '#000');
      cv.dataset.flows = sel ? drawFlows(sel, k0, k1) : 0;
      if (tl.hover && tl.hover !== sel) drawSlice(tl.hover, '#1565c0');
      named = n;
      ctx.restore();
      ctx.restore();
      ctx.fillStyle = '#555';
      const tk = ticks();
      for (const [t, text] of tk) {
        const x = X(t);
        ctx.fillRect(x, 0, 1, AXIS - 2);
        ctx.fillStyle = 'rgba(0,0,0,.08)'; ctx.fillRect(x, AXIS, 1, cv.height - AXIS); ctx.fillStyle = '#555';
        ctx.fillText(text, x + 3, 11);
      }
      cv.dataset.ticks = tk.map((x) => x[1]).join('|');
      if (tl.cursor !== null) { ctx.fillStyle = '#ff8c00'; ctx.fillRect(X(tl.cursor), AXIS, 2, cv.height); }
      cv.dataset.lanes = k0 + '-' + (k1 - 1);
      cv.dataset.t0 = tl.t0; cv.dataset.t1 = tl.t1;
      cv.dataset.selected = sel ? sel.order : '';
      cv.dataset.laneH = laneH.join(' ');
      cv.dataset.compact = expanded.filter((e) => !e).length;
    }
    // Canvas position of a message's middle (for tests and tools).
    tl.pos = function (order) {
      const m = byStart.find((x) => x.order === order);
      if (!m || !laneOf.has(m.tid)) return null;
      return [(Math.max(LEFT, X(m.start)) + Math.min(cv.width - RIGHT, X(m.end))) / 2, rowY(m) + rowH(laneOf.get(m.tid)) / 2];
    };
    // What is under (px, py): a message of the page, or a summary column `{lane, depth, col}`.
    tl.hit = function (px, py) {
      if (py < AXIS || px < LEFT) return null;
      const y = py - AXIS + top;
      let k = 0;
      while (k < tids.length && laneTop[k + 1] <= y) k++;
      if (k >= tids.length) return null;
      const row = Math.floor((y - laneTop[k]) / rowH(k));
      if (row >= rowsOf[k]) return null;
      let best = null;
      for (const m of perLane[k]) {
        if (Math.min(m.depth, rowsOf[k] - 1) !== row || px < X(m.start) - 1 || px > X(m.end) + 1) continue;
        if (!best || m.depth > best.depth) best = m;
      }
      if (best) return best;
      const th = lodOf.get(tids[k]);
      if (!th || !LOD.columns.length || !th.rows[row]) return null;
      const lv = overviewLevel(), colT = Math.max(1, LOD.t1 - LOD.t0) / LOD.columns[lv], col = Math.floor((T(px) - LOD.t0) / colT);
      const p = pack(th, row, lv);
      let lo = 0, hi = p.col.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (p.col[mid] < col) lo = mid + 1; else hi = mid; }
      return lo < p.col.length && p.col[lo] === col ? { lane: k, depth: row, col: [col, p.busy[lo], p.wait[lo], p.meth[lo]], colT } : null;
    };
    const describe = (h) => {
      if (h.col) {
        const c = h.col;
        return threadName.get(tids[h.lane]) + ', depth ' + h.depth + ', ' + fmtT(c[0] * h.colT) + ' – ' + fmtT((c[0] + 1) * h.colT) + ': busy ' + fmtT(c[1]) + (c[2] ? ' (waiting ' + fmtT(c[2]) + ')' : '') + '; busiest ' + methodName(c[3]);
      }
      const m = h;
      return methodName(m.method) + '\n' + label(m.sender) + ' → ' + label(m.receiver) + '\n' + fmtT(m.aggregate_time) + ' (net ' + fmtT(m.net_time) +
        (m.waiting ? ', waiting ' + fmtT(m.waiting) : '') + ') at ' + fmtT(m.start - D.span[0]) + ' on ' + (threadName.get(m.tid) || m.tid);
    };
    const zoomAt = (px, f) => {
      const t = T(px), w = Math.max(10, (tl.t1 - tl.t0) * f), a = (t - tl.t0) / (tl.t1 - tl.t0);
      tl.t0 = t - a * w; tl.t1 = tl.t0 + w;
      tl.request(true);
    };
    const panBy = (dpx) => { const dt = dpx / (cv.width - LEFT - RIGHT) * (tl.t1 - tl.t0); tl.t0 += dt; tl.t1 += dt; tl.request(true); };
    let mouseX = null;
    cv.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      if (ev.shiftKey) { box.scrollTop += ev.deltaY || ev.deltaX; return; } // shift+wheel: lanes
      const b = cv.getBoundingClientRect();
      if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) { panBy(ev.deltaX); return; }
      zoomAt(ev.clientX - b.left, Math.exp(ev.deltaY * 0.002));
    }, { passive: false });
    // W/S zoom at the pointer (or the middle), A/D pan: held keys repeat.
    cv.tabIndex = 0;
    cv.addEventListener('keydown', (ev) => {
      const k = ev.key.toLowerCase(), w = cv.width - LEFT - RIGHT, at = mouseX === null ? LEFT + w / 2 : mouseX;
      if (k === 'w') zoomAt(at, 0.8); else if (k === 's') zoomAt(at, 1.25);
      else if (k === 'a') panBy(-w * 0.1); else if (k === 'd') panBy(w * 0.1);
      else if (k === 'escape') { tl.selected = null; tl.request(); } else return;
      ev.preventDefault();
    });
    let pan = null;
    cv.addEventListener('pointerdown', (ev) => { cv.focus({ preventScroll: true }); pan = { x: ev.clientX, t0: tl.t0, t1: tl.t1, moved: false }; cv.setPointerCapture(ev.pointerId); tip.hidden = true; });
    cv.addEventListener('pointermove', (ev) => {
      const b = cv.getBoundingClientRect();
      mouseX = ev.clientX - b.left;
      if (!pan) {
        const h = tl.hit(mouseX, ev.clientY - b.top);
        const m = h && !h.col ? h : null;
        if (m !== tl.hover) { tl.hover = m; tl.request(); }
        if (h) {
          tip.textContent = describe(h);
          tip.hidden = false;
          tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - 320) + 'px';
          tip.style.top = ev.clientY + 16 + 'px';
          tip.dataset.order = m ? m.order : '';
        } else tip.hidden = true;
        return;
      }
      const dx = ev.clientX - pan.x;
      if (Math.abs(dx) > 3) pan.moved = true;
      if (!pan.moved) return;
      const dt = dx / (cv.width - LEFT - RIGHT) * (pan.t1 - pan.t0);
      tl.t0 = pan.t0 - dt; tl.t1 = pan.t1 - dt; tl.request(true);
    });
    cv.addEventListener('pointerleave', () => { tip.hidden = true; mouseX = null; if (tl.hover) { tl.hover = null; tl.request(); } });
    cv.addEventListener('pointerup', (ev) => {
      if (pan && !pan.moved && ev.clientX - cv.getBoundingClientRect().left < LEFT) {
        // A click on a thread's name expands or compacts its lane.
        const y = ev.clientY - cv.getBoundingClientRect().top - AXIS + top;
        const k = laneTop.findIndex((t, j) => j < tids.length && y >= t && y < laneTop[j + 1]);
        if (k >= 0) { expanded[k] = !expanded[k]; stack(); size(); tl.draw(); }
      } else if (pan && !pan.moved) {
        const b = cv.getBoundingClientRect();
        const h = tl.hit(ev.clientX - b.left, ev.clientY - b.top);
        const m = h && !h.col ? h : null;
        tl.selected = m;
        if (m) {
          const r = nodeById.get(m.receiver);
          if (r) focusNode(r, false);
          const sends = sendsOf(m).length;
          $('timeline-info').textContent = 'message ' + m.order + ': ' + methodName(m.method) + ' ' + label(m.sender) + ' → ' + label(m.receiver) + ', ' + fmtT(m.aggregate_time) + ' (net ' + fmtT(m.net_time) + (m.waiting ? ', waiting ' + fmtT(m.waiting) : '') + ')' + (sends ? '; its ' + sends + ' send' + (sends === 1 ? '' : 's') + ' drawn as arrows' : '');
          $('timeline-info').dataset.order = m.order;
        } else { $('timeline-info').textContent = ''; delete $('timeline-info').dataset.order; }
        tl.draw();
      }
      pan = null;
    });
    $('tl-zoom-in').addEventListener('click', () => { const c = (tl.t0 + tl.t1) / 2, w = (tl.t1 - tl.t0) / 4; tl.t0 = c - w; tl.t1 = c + w; tl.draw(); });
    $('tl-reset').addEventListener('click', () => { tl.t0 = D.span[0]; tl.t1 = Math.max(D.span[1], D.span[0] + 1); tl.draw(); });
    const which = (LOD.columns.length ? 'every message, one row per depth (a column\'s height: its busy share; waiting grey)' : 'all messages, nested by depth') +
      (msgs.length < D.messages_total ? '; the ' + msgs.length.toLocaleString('en') + ' longest of ' + D.messages_total.toLocaleString('en') + ' drawn as slices (names, hover, click)' : '');
    // Said once the lanes are sized (whether they scroll depends on the window).
    const note = () => {
      const lanes = TOTAL_H > viewH ? 'all ' + tids.length.toLocaleString('en') + ' threads (scroll or shift+wheel for more)' : tids.length === 1 ? '1 thread' : tids.length + ' threads';
      $('timeline-note').textContent = which + ', ' + lanes + '; wheel or W/S zoom, drag or A/D pan, hover names, click selects';
    };
    tl.scrollToLane = (k) => { box.scrollTop = laneTop[Math.min(k, tids.length)]; top = box.scrollTop; tl.draw(); };
    tl.size = size;
    // Every level packed ahead of the first zoom (after the page is up).
    tl.warm = () => { for (const th of LOD.threads) th.rows.forEach((r, d) => r.levels.forEach((_, lv) => pack(th, d, lv))); };
    return tl;
  })();

  // ---------- before / after (`--baseline`) ----------
  (function baseline() {
    const B = D.baseline;
    if (!B) return;
    const sec = $('baseline-view');
    sec.hidden = false;
    const change = (a, b) => a ? ((b - a) / a * 100).toFixed(1) + ' %' : '';
    const t = el('table', { class: 'stats', id: 'table-baseline' });
    const head = el('tr');
    for (const c of ['', 'baseline (' + B.path.split('/').pop() + ')', 'this run', 'change']) head.appendChild(el('th', { class: 's' }, c));
    t.appendChild(head);
    const row = (name, a, b, f) => {
      const tr = el('tr', { 'data-metric': name });
      tr.append(el('td', { class: 's' }, name), el('td', { 'data-v': a }, f(a)), el('td', { 'data-v': b }, f(b)), el('td', null, change(a, b)));
      t.appendChild(tr);
    };
    const bs = B.span[1] - B.span[0];
    row('span', bs, span, fmtT);
    row('busy time', B.total_time, D.totals.total_time, fmtT);
    row('messages', B.messages, D.totals.messages, num);
    row('threads', B.threads, D.totals.threads, num);
    row('instances', B.instances, D.totals.instances, num);
    $('baseline').appendChild(el('p', { class: 'speed-verdict' }, bs && span ? 'this run takes ' + (span / bs * 100).toFixed(1) + ' % of the baseline\'s span (speedup ×' + (bs / span).toFixed(2) + ')' : ''));
    $('baseline').appendChild(t);
    // The top proposal's objects in both runs.
    const h = D.hints[0];
    const n = h && hintTarget(h);
    if (n) {
      const old = B.top_instances.find((x) => x[0] === n.i.label);
      const pt = el('table', { class: 'stats', id: 'table-baseline-proposal' });
      const hr = el('tr');
      for (const c of ['top proposal\'s object', 'baseline', 'this run']) hr.appendChild(el('th', { class: 's' }, c));
      pt.appendChild(hr);
      const tr = el('tr');
      tr.append(el('td', { class: 's' }, n.i.label), el('td', null, old ? fmtT(old[1]) : 'not among its most active'), el('td', null, fmtT(n.i.active_time)));
      pt.appendChild(tr);
      $('baseline').appendChild(el('h3', null, 'Top proposal: ' + hintText(h).slice(0, 120)));
      $('baseline').appendChild(pt);
    }
    const oldC = new Map(B.classes.map((c) => [c[0], c]));
    const ct = el('table', { class: 'stats', id: 'table-baseline-classes' });
    const ch = el('tr');
    for (const c of ['class', 'baseline time', 'this run', 'change']) ch.appendChild(el('th', { class: 's' }, c));
    ct.appendChild(ch);
    const classes = D.classes.slice().sort((a, b) => b.active_time - a.active_time).slice(0, 40);
    for (const c of classes) {
      const o = oldC.get(c.class);
      const tr = el('tr', { 'data-class': c.class });
      tr.append(el('td', { class: 's' }, c.class), el('td', null, o ? fmtT(o[1]) : '—'), el('td', null, fmtT(c.active_time)), el('td', null, o ? change(o[1], c.active_time) : 'new'));
      ct.appendChild(tr);
    }
    $('baseline').appendChild(el('h3', null, 'Time per class'));
    $('baseline').appendChild(ct);
  })();

  // ---------- statistics tables (sorted by time by default) ----------
  // Tables are virtualised: every row is sortable, only the rows in the box's window (plus a
  // margin) are in the DOM, between two spacer rows that keep the scroll height.
  const ROW_H = 21, OVERSCAN = 10;
  // Says when some methods' times are partly estimated (throttled, counted untimed).
  function estimatedNote() {
    const n = D.methods.filter((m) => m.calls > 0 && m.time_estimated_from !== undefined).length;
    return n ? n + ' throttled: their times past the first timed calls are estimated (see "timed calls")' : '';
  }

  function table(id, title, cols, rows, note, sortKey, sortAsc) {
    const wrap = $('tables');
    wrap.appendChild(el('h3', null, title + (note ? ' — ' + note : '')));
    const div = el('div', { class: 'tablewrap' });
    const t = el('table', { class: 'stats', id: 'table-' + id });
    const thead = el('thead'), tr = el('tr'), tbody = el('tbody');
    let sortCol = null, asc = true, first = -1, last = -1;
    const rowKey = (cols.find((c) => c.rowKey) || {}).rowKey;
    const rowOf = (r) => {
      const row = el('tr');
      if (rowKey) row.dataset.key = rowKey(r);
      if (r.id !== undefined && typeof r.id === 'number' && id === 'instances') { row.dataset.id = r.id; row.classList.add('jump'); }
      for (const c of cols) {
        const v = c.get(r);
        const td = el('td', c.num ? null : { class: 's' }, c.fmt ? c.fmt(v, r) : (c.num ? num(v) : (v === null || v === undefined ? '' : v)));
        if (c.num && v !== null && v !== undefined) td.dataset.v = v;
        if (c.title) { const t = c.title(r); if (t) td.title = t; }
        row.appendChild(td);
      }
      return row;
    };
    const spacer = (h) => { const row = el('tr', { class: 'spacer' }); row.style.height = h + 'px'; row.appendChild(el('td', { colspan: cols.length })); return row; };
    const render = (force) => {
      const h = div.clientHeight || 420;
      const a = Math.max(0, Math.floor(div.scrollTop / ROW_H) - OVERSCAN), b = Math.min(rows.length, Math.ceil((div.scrollTop + h) / ROW_H) + OVERSCAN);
      if (!force && a === first && b === last) return;
      first = a; last = b;
      tbody.textContent = '';
      if (a > 0) tbody.appendChild(spacer(a * ROW_H));
      for (let k = a; k < b; k++) tbody.appendChild(rowOf(rows[k]));
      if (b < rows.length) tbody.appendChild(spacer((rows.length - b) * ROW_H));
      t.dataset.rows = rows.length; t.dataset.first = a; t.dataset.last = b;
    };
    let queued = false;
    div.addEventListener('scroll', () => { if (queued) return; queued = true; requestAnimationFrame(() => { queued = false; render(false); }); });
    const sortBy = (k, ascending) => {
      const c = cols[k];
      sortCol = k; asc = ascending;
      const dir = asc ? 1 : -1;
      rows.sort((a, b) => {
        const x = c.get(a), y = c.get(b);
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (c.num ? x - y : String(x).localeCompare(String(y))) * dir;
      });
      for (const o of thead.querySelectorAll('th')) o.removeAttribute('aria-sort');
      thead.querySelectorAll('th')[k].setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      render(true);
    };
    cols.forEach((c, k) => {
      const th = el('th', { 'data-key': c.key, class: c.num ? '' : 's', title: c.help || ('sort by ' + c.label) }, c.label);
      th.addEventListener('click', () => sortBy(k, sortCol === k ? !asc : !c.num)); // numbers: largest first
      tr.appendChild(th);
    });
    thead.appendChild(tr); t.append(thead, tbody); div.appendChild(t); wrap.appendChild(div);
    tbody.addEventListener('click', (ev) => { const r = ev.target.closest('tr[data-id]'); if (r) focusNode(nodeById.get(Number(r.dataset.id)), true); });
    const sk = cols.findIndex((c) => c.key === sortKey);
    if (sk >= 0) sortBy(sk, !!sortAsc); else render(true);
    // Fixed column widths from the first rows, so scrolling does not make columns jump.
    for (const th of thead.querySelectorAll('th')) th.style.minWidth = th.offsetWidth + 'px';
  }
  // Rows open in the page's one ranking (the answer's first line is its top entry); rows it
  // does not name follow, most work first.
  const RANK = new Map(RANKING.map((r, k) => [r.kind + ':' + r.key, k]));
  const BEST_OF_CLASS = new Map();
  RANKING.forEach((r, k) => { if (r.class && !BEST_OF_CLASS.has(r.class)) BEST_OF_CLASS.set(r.class, k); });
  function rankCols(kind, keyOf, work, rows) {
    const after = new Map(rows.slice().sort((a, b) => work(b) - work(a)).map((r, k) => [keyOf(r), RANKING.length + k]));
    // A class without an entry of its own ranks by its best instance's or method's.
    const rankOf = (r) => { const k = RANK.get(kind + ':' + keyOf(r)); return k !== undefined || kind !== 'class' ? k : BEST_OF_CLASS.get(r.class); };
    const entry = (r) => { const k = rankOf(r); return k === undefined ? null : RANKING[k]; };
    return [
      { key: 'rank', label: 'rank', num: true, rowKey: keyOf, get: (r) => { const k = rankOf(r); return k === undefined ? after.get(keyOf(r)) + 1 : k + 1; },
        fmt: (v) => v <= RANKING.length ? num(v) : '', help: 'the ranking of the answer above: proposals that pay, then by share of busy time' },
      { key: 'verdict', label: 'verdict', get: (r) => { const e = entry(r); return e ? '×' + e.speedup.toFixed(2) + (e.pays ? ' pays' : '') : ''; },
        title: (r) => { const e = entry(r); return e ? human(e.text) : ''; }, help: 'predicted speedup of making it active (hover for why)' },
    ];
  }
  function buildTables() {
    const P = (v) => pct(v);
    const TM = (v) => fmtT(v);
    table('instances', 'Instances', rankCols('instance', (i) => String(i.id), (i) => i.active_time, D.instances).concat([
      { key: 'oid', label: 'object ID', num: true, get: (i) => i.kind === 'root' ? null : i.oid },
      { key: 'label', label: 'instance', get: (i) => i.label },
      { key: 'class', label: 'class', get: (i) => i.class },
      { key: 'size', label: 'size (B)', num: true, get: (i) => i.size },
      { key: 'active_time', label: 'work time', num: true, get: (i) => i.active_time, fmt: TM, help: 'net on-CPU time of the messages it received' },
      { key: 'waiting', label: 'waiting', num: true, get: (i) => i.waiting || 0, fmt: TM, help: 'net time its messages waited off the CPU (not work)' },
      { key: 'level', label: 'share of total', num: true, get: (i) => i.level, fmt: P },
      { key: 'received', label: 'received', num: true, get: (i) => i.received },
      { key: 'sent', label: 'sent', num: true, get: (i) => i.sent },
      { key: 'neighbours', label: 'adjacency', num: true, get: (i) => i.neighbours },
      { key: 'cyclic', label: 'cyclic', num: true, get: (i) => i.cyclic },
    ]), D.instances.slice(), D.instances.length < D.totals.instances ? 'the ' + D.instances.length + ' most active of ' + D.totals.instances.toLocaleString('en') : '', 'rank', true);
    table('classes', 'Classes', rankCols('class', (c) => c.class, (c) => c.active_time, D.classes).concat([
      { key: 'class', label: 'class', get: (c) => c.class },
      { key: 'instances', label: 'instances', num: true, get: (c) => c.instances },
      { key: 'messages', label: 'messages', num: true, get: (c) => c.messages },
      { key: 'active_time', label: 'active time', num: true, get: (c) => c.active_time, fmt: TM },
      { key: 'share', label: 'share of total', num: true, get: (c) => c.active_time / Math.max(1, D.totals.total_time), fmt: P },
      { key: 'mean_level', label: 'mean share per instance', num: true, get: (c) => c.mean_level, fmt: P },
      { key: 'max_level', label: 'largest instance share', num: true, get: (c) => c.max_level, fmt: P },
      { key: 'total_size', label: 'total size (B)', num: true, get: (c) => c.total_size },
    ]), D.classes.slice(), '', 'rank', true);
    const called = D.methods.filter((m) => m.calls > 0);
    table('methods', 'Methods', rankCols('method', (m) => String(m.id), (m) => m.net_time.total, called).concat([
      { key: 'method', label: 'method', get: (m) => m.class + '.' + m.method },
      { key: 'signature', label: 'signature', get: (m) => shownSig(m) },
      { key: 'calls', label: 'calls', num: true, get: (m) => m.calls },
      // A throttled method's later calls were counted untimed: its times are estimated from
      // this many timed calls (the analysis's time_estimated_from).
      { key: 'timed', label: 'timed calls', num: true, get: (m) => m.time_estimated_from === undefined ? m.calls : m.time_estimated_from, fmt: (v, m) => m.time_estimated_from === undefined ? num(v) : num(v) + ' (rest estimated)' },
      { key: 'total', label: 'net work time', num: true, get: (m) => m.net_time.total, fmt: TM },
      { key: 'waiting', label: 'waiting', num: true, get: (m) => m.waiting || 0, fmt: TM, help: 'net time its calls waited off the CPU (not work)' },
      { key: 'level', label: 'share of total', num: true, get: (m) => m.level, fmt: P },
      { key: 'mean', label: 'mean per call', num: true, get: (m) => m.net_time.mean, fmt: TM },
      { key: 'min', label: 'min', num: true, get: (m) => m.net_time.min, fmt: TM },
      { key: 'max', label: 'max', num: true, get: (m) => m.net_time.max, fmt: TM },
      { key: 'std_dev', label: 'std-dev', num: true, get: (m) => m.net_time.std_dev, fmt: TM },
      { key: 'aggregate', label: 'aggregate time', num: true, get: (m) => m.aggregate_time.total, fmt: TM },
      { key: 'size', label: 'mean size (B)', num: true, get: (m) => m.size.mean },
      { key: 'cyclic', label: 'cyclic', num: true, get: (m) => m.cyclic },
    ]), called, estimatedNote(), 'rank', true);
    table('edges', 'Messages per sender → receiver', [
      { key: 'sender', label: 'sender', get: (e) => label(e.sender) },
      { key: 'receiver', label: 'receiver', get: (e) => label(e.receiver) },
      { key: 'calls', label: 'calls', num: true, get: (e) => e.calls },
      { key: 'net_time', label: 'net time', num: true, get: (e) => e.net_time, fmt: TM },
      { key: 'level', label: 'share of total', num: true, get: (e) => e.level, fmt: P },
      { key: 'aggregate_time', label: 'aggregate time', num: true, get: (e) => e.aggregate_time, fmt: TM },
      { key: 'bytes', label: 'bytes', num: true, get: (e) => e.bytes },
      { key: 'grain', label: 'time per byte', num: true, get: (e) => e.aggregate_time / Math.max(1, e.bytes), fmt: TM },
      { key: 'cyclic', label: 'cyclic', get: (e) => e.cyclic ? 'yes' : '' },
    ], edges.slice(), D.edges.length < D.totals.edges ? D.edges.length + ' of ' + D.totals.edges.toLocaleString('en') : '', 'net_time');
    const total = D.totals.total_time || 1;
    table('messages', 'Longest messages', [
      { key: 'order', label: 'order', num: true, get: (m) => m.order },
      { key: 'method', label: 'method', get: (m) => methodName(m.method) },
      { key: 'sender', label: 'sender', get: (m) => label(m.sender) },
      { key: 'receiver', label: 'receiver', get: (m) => label(m.receiver) },
      { key: 'size', label: 'size (B)', num: true, get: (m) => m.size },
      { key: 'net_time', label: 'net time', num: true, get: (m) => m.net_time, fmt: TM },
      { key: 'level', label: 'share of total', num: true, get: (m) => m.level, fmt: P },
      { key: 'aggregate_time', label: 'aggregate time', num: true, get: (m) => m.aggregate_time, fmt: TM },
      { key: 'aggregate_level', label: 'aggregate share', num: true, get: (m) => m.aggregate_time / total, fmt: P },
      { key: 'depth', label: 'depth', num: true, get: (m) => m.depth },
      { key: 'cyclic', label: 'cyclic', get: (m) => m.cyclic ? 'yes' : '' },
    ], msgs.slice(), msgs.length < D.messages_total ? 'the ' + msgs.length + ' longest of ' + D.messages_total.toLocaleString('en') : '', 'aggregate_time');
  }

  // ---------- start: paint the answer first, lay the graph out after ----------
  // The graph's caption, after the view it is in: anything sampled says so, with the share
  // of the work it holds (the class view's nodes and edges are the whole run's).
  function notes() {
    const t = D.totals, notes = [];
    const work = D.instances.reduce((s, i) => s + (i.kind === 'root' ? 0 : i.active_time), 0);
    const drawn = 'the ' + NF[0].format(D.instances.length) + ' most active of ' + NF[0].format(t.instances) + ' instances (' + pct(work / TOTAL) + ' of busy time)';
    if (state.view === 'classes') notes.push('class view: every class and class edge of the whole run' + (D.instances.length < t.instances ? '; a class expands into ' + drawn : ''));
    else if (D.instances.length < t.instances) notes.push('instance view: ' + drawn);
    if (state.view !== 'classes' && D.edges.length < t.edges) notes.push(NF[0].format(D.edges.length) + ' of ' + NF[0].format(t.edges) + ' instance edges');
    if (D.messages.length < D.messages_total) notes.push('animation and the timeline\'s slices: the ' + NF[0].format(D.messages.length) + ' longest of ' + NF[0].format(D.messages_total) + ' messages');
    $('graph-note').textContent = notes.join('; ');
    $('graph-note').dataset.view = state.view;
  }
  notes();
  $('view-mode').value = state.view;
  svg.dataset.view = state.view;
  if (edges.length > 300) {
    svg.classList.add('dense', 'no-counts');
    $('show-counts').checked = false;
  }
  $('layout-progress').textContent = 'laying out ' + nodes.length.toLocaleString('en') + ' instances…';
  const parts = { sync: performance.now() - T0 };
  setTimeout(() => {
    const t = () => performance.now() - T0;
    parts.start = t();
    colourNodes();
    legend();
    computeAllowed();
    applyFilters();
    parts.filters = t();
    relayout();
    parts.layout = t();
    showStep();
    showSpeed();
    fit();
    timeline.size();
    timeline.draw();
    parts.timeline = t();
    $('layout-progress').textContent = '';
    window.addEventListener('resize', () => { fit(); timeline.size(); timeline.draw(); });
    const graphDrawn = performance.now() - T0;
    // The canvas-painted node at a point of the window (tests pick empty space to pan).
    const nodeAtClient = (x, y) => { const b = $('graph-wrap').getBoundingClientRect(); return nodeAt(x - b.left, y - b.top); };
    // `redraw`: a full repaint of the graph at the current view (what input at rest gets).
    window.revyReport = { perf, nodeAtClient, fit, redraw: applyView, nodes, edges, groups, groupEdges, filters, state, setView, expand, focusNode, focusHint, timeline, view, human, ready: false, timing: { firstPaint, answerAt, graphDrawn, parts } };
    // The tables are below the fold: built once the graph is on screen.
    setTimeout(() => {
      buildTables();
      fillTargets();
      timeline.warm();
      parts.tables = t();
      window.revyReport.ready = true;
      document.body.dataset.ready = '1';
    }, 0);
  }, 0);
})();
