// Revy report page: object call graph (SVG), inspector, filtering, highlighting, animation,
// sortable statistics. Vanilla JS, no network access: everything it shows is in #revy-data.
(function () {
  'use strict';
  window.__revyErrors = window.__revyErrors || [];
  window.addEventListener('error', function (e) { window.__revyErrors.push(String(e.message)); });

  const D = JSON.parse(document.getElementById('revy-data').textContent);
  const NS = 'http://www.w3.org/2000/svg'; // the SVG namespace name, not a fetch
  const UNIT = D.trace.unit;
  const COLOURS = { over60: '#d62728', over30: '#1f5fbf', over10: '#2ca02c', rest: '#222222' };
  const BAND_TEXT = { over60: '> 60 %', over30: '> 30 %', over10: '> 10 %', rest: '≤ 10 %' };
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
  const pct = (x) => (x * 100).toFixed(x >= 0.1 ? 1 : 2) + ' %';
  const num = (x) => (x === null || x === undefined) ? '' : (Number.isInteger(x) ? x.toLocaleString('en') : x.toFixed(2));

  // ---------- model ----------
  const inst = new Map();
  for (const i of D.instances) inst.set(i.id, i);
  const label = (id) => (inst.get(id) || { label: '#' + id }).label;
  const method = (m) => D.methods[m] || { class: '?', method: '?', signature: '' };
  const methodName = (m) => { const x = method(m); return x.class + '.' + x.method; };

  // Links: sender→receiver→method aggregates; edges: per pair.
  const links = D.links.map((a) => ({ s: a[0], r: a[1], m: a[2], calls: a[3], net: a[4], agg: a[5], bytes: a[6], key: a[0] + '>' + a[1] + ':' + a[2] }));
  const edges = D.edges.map((e) => Object.assign({ key: e.sender + '>' + e.receiver, links: [], other: e.calls }, e));
  const edgeByKey = new Map(edges.map((e) => [e.key, e]));
  for (const l of links) {
    const e = edgeByKey.get(l.s + '>' + l.r);
    if (e) { e.links.push(l); e.other -= l.calls; }
  }
  const nodes = D.instances.map((i) => ({ id: i.id, i: i, x: 0, y: 0, r: 7 + 16 * Math.sqrt(i.level), out: [], inn: [], visible: true }));
  const nodeById = new Map(nodes.map((n) => [n.id, n]));
  for (const e of edges) {
    const s = nodeById.get(e.sender), r = nodeById.get(e.receiver);
    if (s) s.out.push(e);
    if (r && r !== s) r.inn.push(e);
  }
  const root = nodeById.get(D.main_root) || nodes[0];

  // Ranks by activity (1 = most active): instances (roots excluded) and edges.
  const instRank = new Map();
  D.instances.filter((i) => i.kind !== 'root').slice().sort((a, b) => b.active_time - a.active_time || a.id - b.id)
    .forEach((i, k) => instRank.set(i.id, k + 1));
  const edgeRank = new Map();
  edges.slice().sort((a, b) => b.net_time - a.net_time || a.sender - b.sender || a.receiver - b.receiver)
    .forEach((e, k) => edgeRank.set(e.key, k + 1));

  // ---------- header ----------
  (function header() {
    const t = D.totals;
    const name = D.trace.path.split('/').pop();
    const s = $('summary');
    const parts = [name, t.instances + ' instances', t.messages.toLocaleString('en') + ' messages',
      t.threads + ' thread' + (t.threads === 1 ? '' : 's'), 'total ' + t.total_time.toLocaleString('en') + ' ' + UNIT];
    for (const p of parts) s.appendChild(el('span', null, p));
    for (const w of D.trace.warnings) $('warnings').appendChild(el('div', null, 'warning: ' + w));
    for (const u of document.querySelectorAll('.unit')) u.textContent = UNIT;
    const legend = $('legend');
    legend.appendChild(document.createTextNode('activity:'));
    for (const b of ['over60', 'over30', 'over10', 'rest']) {
      const i = el('i'); i.style.background = COLOURS[b];
      legend.appendChild(i); legend.appendChild(document.createTextNode(BAND_TEXT[b]));
    }
    const notes = [];
    if (D.instances.length < t.instances) notes.push('showing the ' + D.instances.length + ' most active of ' + t.instances + ' instances');
    if (D.edges.length < t.edges) notes.push(D.edges.length + ' of ' + t.edges + ' edges');
    if (D.messages.length < D.messages_total) notes.push('animation: the ' + D.messages.length + ' longest of ' + D.messages_total.toLocaleString('en') + ' messages');
    $('graph-note').textContent = notes.join('; ');
    $('foot').textContent = 'Revy ' + D.version + ' — ' + D.trace.path + ' (' + D.trace.form + ', ' + D.trace.events.toLocaleString('en') + ' events, unit ' + UNIT + ')';
  })();

  // ---------- layout: radial tree from the root, then overlap relaxation ----------
  function layout(only) {
    const use = only ? nodes.filter(only) : nodes;
    if (!use.length) return;
    const inUse = new Set(use.map((n) => n.id));
    const adj = new Map(use.map((n) => [n.id, []]));
    const seenPair = new Set();
    for (const e of edges) {
      if (e.sender === e.receiver || !inUse.has(e.sender) || !inUse.has(e.receiver)) continue;
      const k = Math.min(e.sender, e.receiver) + ':' + Math.max(e.sender, e.receiver);
      if (seenPair.has(k)) continue;
      seenPair.add(k);
      adj.get(e.sender).push(e.receiver); adj.get(e.receiver).push(e.sender);
    }
    // Heavier neighbours first so the busy part of the tree is contiguous.
    const lv = (id) => inst.get(id).active_time;
    for (const a of adj.values()) a.sort((x, y) => lv(y) - lv(x) || x - y);
    const start = inUse.has(root.id) ? root.id : use[0].id;
    const parent = new Map([[start, null]]), depth = new Map([[start, 0]]), kids = new Map();
    const order = [start];
    const bfs = (from) => {
      let q = [from];
      while (q.length) {
        const nq = [];
        for (const v of q) {
          for (const w of adj.get(v)) {
            if (parent.has(w)) continue;
            parent.set(w, v); depth.set(w, depth.get(v) + 1);
            if (!kids.has(v)) kids.set(v, []);
            kids.get(v).push(w); order.push(w); nq.push(w);
          }
        }
        q = nq;
      }
    };
    bfs(start);
    // Other components hang off the root (most active first).
    const rest = use.filter((n) => !parent.has(n.id)).sort((a, b) => b.i.active_time - a.i.active_time || a.id - b.id);
    for (const n of rest) {
      if (parent.has(n.id)) continue;
      parent.set(n.id, start); depth.set(n.id, 1);
      if (!kids.has(start)) kids.set(start, []);
      kids.get(start).push(n.id); order.push(n.id);
      bfs(n.id);
    }
    const leaves = new Map();
    for (let k = order.length - 1; k >= 0; k--) {
      const v = order[k];
      const c = kids.get(v) || [];
      leaves.set(v, c.length ? c.reduce((s, w) => s + leaves.get(w), 0) : 1);
    }
    // Ring radii: each ring is wide enough for its nodes.
    const perRing = [];
    for (const v of order) { const d = depth.get(v); perRing[d] = (perRing[d] || 0) + 1; }
    const spacing = 46, radius = [0];
    for (let d = 1; d < perRing.length; d++) {
      radius[d] = Math.max(radius[d - 1] + 110, perRing[d] * spacing / (2 * Math.PI));
    }
    const ang = new Map([[start, [0, 2 * Math.PI]]]);
    const target = new Map();
    for (const v of order) {
      const [a0, a1] = ang.get(v);
      const d = depth.get(v);
      const mid = (a0 + a1) / 2;
      target.set(v, [radius[d] * Math.cos(mid), radius[d] * Math.sin(mid)]);
      let a = a0;
      for (const w of kids.get(v) || []) {
        const span = (a1 - a0) * leaves.get(w) / leaves.get(v);
        ang.set(w, [a, a + span]); a += span;
      }
    }
    for (const n of use) { const t = target.get(n.id); n.x = t[0]; n.y = t[1]; n.deg = adj.get(n.id).length || 1; }
    // Force-directed refinement from the radial start: springs along edges, short-range
    // repulsion (grid buckets, so it stays linear), cooling; the root stays at the centre.
    const byId = new Map(use.map((n) => [n.id, n]));
    const springs = [];
    for (const [a, ns] of adj) for (const b of ns) if (a < b) springs.push([byId.get(a), byId.get(b)]);
    const L = 90, R = 3 * L;
    const iters = use.length > 1500 ? 40 : 120;
    // Small graphs keep the thesis's circular pattern around the root.
    const pull = use.length <= 60 ? 0.5 : 0;
    for (let it = 0; it < iters; it++) {
      const temp = 40 * (1 - it / iters) + 2;
      for (const n of use) { n.fx = 0; n.fy = 0; }
      const grid = new Map();
      const cell = (x) => Math.floor(x / R);
      for (const n of use) {
        const k = cell(n.x) + ',' + cell(n.y);
        if (!grid.has(k)) grid.set(k, []);
        grid.get(k).push(n);
      }
      for (const n of use) {
        const cx = cell(n.x), cy = cell(n.y);
        for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) {
          const b = grid.get((cx + dx) + ',' + (cy + dy));
          if (!b) continue;
          for (const m of b) {
            if (m.id <= n.id) continue;
            let vx = m.x - n.x, vy = m.y - n.y;
            let d2 = vx * vx + vy * vy;
            if (d2 > R * R) continue;
            if (d2 < 0.01) { vx = Math.cos(m.id); vy = Math.sin(m.id); d2 = 1; }
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
        if (n.id === start) { n.x = 0; n.y = 0; continue; }
        n.fx -= n.x * 0.02; n.fy -= n.y * 0.02; // gravity keeps components together
        if (pull) { const t = target.get(n.id); n.fx += (t[0] - n.x) * pull; n.fy += (t[1] - n.y) * pull; }
        const f = Math.hypot(n.fx, n.fy) || 1, step = Math.min(f, temp);
        n.x += n.fx / f * step; n.y += n.fy / f * step;
      }
    }
    // Finally push overlapping nodes apart.
    const minD = 34;
    for (let it = 0; it < 30; it++) {
      const grid = new Map();
      const cell = (x) => Math.floor(x / minD);
      for (const n of use) {
        const k = cell(n.x) + ',' + cell(n.y);
        if (!grid.has(k)) grid.set(k, []);
        grid.get(k).push(n);
      }
      let moved = false;
      for (const n of use) {
        const cx = cell(n.x), cy = cell(n.y);
        for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) {
          const b = grid.get((cx + dx) + ',' + (cy + dy));
          if (!b) continue;
          for (const m of b) {
            if (m.id <= n.id) continue;
            let vx = m.x - n.x, vy = m.y - n.y;
            let d = Math.hypot(vx, vy);
            const want = Math.max(minD, n.r + m.r + 8);
            if (d >= want) continue;
            if (d < 0.01) { vx = Math.cos(m.id); vy = Math.sin(m.id); d = 1; }
            const push = (want - d) / 2, ux = vx / d * push, uy = vy / d * push;
            if (n.id !== start) { n.x -= ux; n.y -= uy; }
            if (m.id !== start) { m.x += ux; m.y += uy; }
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
  const applyView = () => vp.setAttribute('transform', 'translate(' + view.x + ',' + view.y + ') scale(' + view.k + ')');
  (function markers() {
    const defs = $('markers');
    for (const b of Object.keys(COLOURS).concat(['active'])) {
      const m = sv('marker', { id: 'arrow-' + b, viewBox: '0 0 10 10', refX: '9', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto-start-reverse', markerUnits: 'userSpaceOnUse' });
      m.appendChild(sv('path', { d: 'M0,0 L10,5 L0,10 z', fill: b === 'active' ? '#ff8c00' : COLOURS[b] }));
      defs.appendChild(m);
    }
  })();

  for (const e of edges) {
    const g = sv('g', { class: 'edge', 'data-key': e.key, 'data-sender': e.sender, 'data-receiver': e.receiver, 'data-calls': e.calls });
    e.halo = sv('path', { class: 'halo' });
    e.line = sv('path', { class: 'line', stroke: COLOURS[e.band], 'stroke-width': (1 + Math.log10(e.calls) * 0.8).toFixed(2), 'marker-end': 'url(#arrow-' + e.band + ')' });
    e.text = sv('text', { 'text-anchor': 'middle' });
    const title = sv('title');
    title.textContent = label(e.sender) + ' → ' + label(e.receiver) + ': ' + e.calls + ' calls, net ' + e.net_time + ' ' + UNIT;
    g.append(e.halo, e.line, e.text, title);
    g.addEventListener('click', (ev) => { ev.stopPropagation(); inspectEdge(e); });
    e.g = g;
    gEdges.appendChild(g);
  }
  for (const n of nodes) {
    const i = n.i;
    const g = sv('g', { class: 'node', 'data-id': n.id, 'data-oid': i.oid, 'data-class': i.class || '', 'data-band': i.band, 'data-level': i.level });
    const halo = sv('circle', { class: 'halo', r: n.r + 6 });
    const body = sv('circle', { class: 'body', r: n.r, fill: COLOURS[i.band] });
    const t = sv('text', { x: n.r + 3, y: 4 });
    const short = i.label.length > 28 ? i.label.slice(0, 27) + '…' : i.label;
    t.textContent = short;
    const title = sv('title');
    title.textContent = i.label + ': active ' + i.active_time + ' ' + UNIT + ' (' + pct(i.level) + ')';
    g.append(halo, body, t, title);
    n.g = g;
    gNodes.appendChild(g);
  }

  function edgePath(e) {
    const s = nodeById.get(e.sender), r = nodeById.get(e.receiver);
    if (!s || !r) return;
    let d, lx, ly;
    if (s === r) {
      const x = s.x, y = s.y - s.r;
      d = 'M' + (x - 5) + ',' + y + ' C' + (x - 28) + ',' + (y - 40) + ' ' + (x + 28) + ',' + (y - 40) + ' ' + (x + 5) + ',' + (y - 1);
      lx = x; ly = y - 34;
    } else {
      const dx = r.x - s.x, dy = r.y - s.y, len = Math.hypot(dx, dy) || 1;
      // Curve a little so A→B and B→A stay apart.
      const nx = -dy / len, ny = dx / len, bend = Math.min(30, len * 0.12);
      const mx = (s.x + r.x) / 2 + nx * bend, my = (s.y + r.y) / 2 + ny * bend;
      const ex = r.x - (r.x - mx) / Math.hypot(r.x - mx, r.y - my) * (r.r + 2);
      const ey = r.y - (r.y - my) / Math.hypot(r.x - mx, r.y - my) * (r.r + 2);
      d = 'M' + s.x.toFixed(1) + ',' + s.y.toFixed(1) + ' Q' + mx.toFixed(1) + ',' + my.toFixed(1) + ' ' + ex.toFixed(1) + ',' + ey.toFixed(1);
      lx = (s.x + 2 * mx + r.x) / 4; ly = (s.y + 2 * my + r.y) / 4;
    }
    e.line.setAttribute('d', d); e.halo.setAttribute('d', d);
    e.text.setAttribute('x', lx.toFixed(1)); e.text.setAttribute('y', (ly - 3).toFixed(1));
  }
  function place(n) { n.g.setAttribute('transform', 'translate(' + n.x.toFixed(1) + ',' + n.y.toFixed(1) + ')'); }
  function drawAll() {
    for (const n of nodes) place(n);
    for (const e of edges) edgePath(e);
  }

  function fit() {
    const vis = nodes.filter((n) => n.visible);
    if (!vis.length) return;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const n of vis) { x0 = Math.min(x0, n.x - n.r); y0 = Math.min(y0, n.y - n.r - 40); x1 = Math.max(x1, n.x + n.r + 90); y1 = Math.max(y1, n.y + n.r + 10); }
    if (root.visible) {
      // The root stays at the centre of the view.
      const hx = Math.max(root.x - x0, x1 - root.x), hy = Math.max(root.y - y0, y1 - root.y);
      x0 = root.x - hx; x1 = root.x + hx; y0 = root.y - hy; y1 = root.y + hy;
    }
    const w = svg.clientWidth || 800, h = svg.clientHeight || 600;
    const k = Math.min(2, 0.95 * Math.min(w / (x1 - x0 || 1), h / (y1 - y0 || 1)));
    view.k = k; view.x = w / 2 - k * (x0 + x1) / 2; view.y = h / 2 - k * (y0 + y1) / 2;
    applyView();
  }

  // ---------- pan, zoom, drag, click ----------
  (function interaction() {
    let drag = null;
    const pt = (ev) => { const b = svg.getBoundingClientRect(); return [ev.clientX - b.left, ev.clientY - b.top]; };
    svg.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const [px, py] = pt(ev);
      const f = Math.exp(-ev.deltaY * 0.0015);
      const k = Math.max(0.02, Math.min(8, view.k * f));
      view.x = px - (px - view.x) * k / view.k; view.y = py - (py - view.y) * k / view.k; view.k = k;
      applyView();
    }, { passive: false });
    svg.addEventListener('pointerdown', (ev) => {
      const g = ev.target.closest('.node');
      const [px, py] = pt(ev);
      drag = { node: g ? nodeById.get(+g.dataset.id) : null, px, py, vx: view.x, vy: view.y, moved: false };
      if (drag.node) { drag.nx = drag.node.x; drag.ny = drag.node.y; }
      else if (ev.target.closest('.edge')) { drag = null; return; } else svg.classList.add('panning');
      svg.setPointerCapture(ev.pointerId);
    });
    svg.addEventListener('pointermove', (ev) => {
      if (!drag) return;
      const [px, py] = pt(ev);
      const dx = px - drag.px, dy = py - drag.py;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (!drag.moved) return;
      if (drag.node) {
        const n = drag.node;
        n.x = drag.nx + dx / view.k; n.y = drag.ny + dy / view.k;
        place(n);
        for (const e of n.out.concat(n.inn)) edgePath(e);
      } else { view.x = drag.vx + dx; view.y = drag.vy + dy; applyView(); }
    });
    const up = () => {
      if (!drag) return;
      if (!drag.moved) { if (drag.node) inspectNode(drag.node); else clearSelection(); }
      svg.classList.remove('panning');
      drag = null;
    };
    svg.addEventListener('pointerup', up);
    svg.addEventListener('pointercancel', up);
    $('fit').addEventListener('click', fit);
    $('relayout').addEventListener('click', () => { layout((n) => n.visible); drawAll(); fit(); });
    $('show-labels').addEventListener('change', (ev) => svg.classList.toggle('no-labels', !ev.target.checked));
    $('show-counts').addEventListener('change', (ev) => svg.classList.toggle('no-counts', !ev.target.checked));
  })();

  // ---------- inspector ----------
  const insp = $('inspector');
  let selected = null;
  function clearSelection() {
    if (selected) selected.g.classList.remove('selected');
    selected = null;
  }
  function select(x) { clearSelection(); selected = x; x.g.classList.add('selected'); }
  function kv(table, k, v, field) {
    const tr = el('tr'); tr.appendChild(el('th', null, k));
    const td = el('td', field ? { 'data-field': field } : null, v === null || v === undefined ? '—' : String(v));
    tr.appendChild(td); table.appendChild(tr);
  }
  function button(text, f, attrs) { const b = el('button', Object.assign({ type: 'button' }, attrs || {}), text); b.addEventListener('click', f); return b; }
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
    kv(t, 'size', i.size === null ? null : i.size + ' B', 'size');
    kv(t, 'active time', i.active_time.toLocaleString('en') + ' ' + UNIT, 'active_time');
    kv(t, 'activity level', pct(i.level), 'level');
    kv(t, 'band', BAND_TEXT[i.band], 'band');
    kv(t, 'rank', instRank.get(i.id) || null, 'rank');
    kv(t, 'messages received / sent', i.received + ' / ' + i.sent, 'messages');
    kv(t, 'neighbours', i.neighbours, 'neighbours');
    kv(t, 'bytes received', i.received_bytes, 'bytes');
    if (i.cyclic) kv(t, 'cyclic (to itself)', i.cyclic);
    insp.appendChild(t);
    const row = el('div', { class: 'row' });
    row.appendChild(button('hide its messages', () => addFilter('instance', String(i.id)), { id: 'inspector-hide-instance' }));
    if (i.class) row.appendChild(button('hide class ' + i.class, () => addFilter('class', i.class), { id: 'inspector-hide-class' }));
    insp.appendChild(row);
    const ls = [];
    for (const e of n.out.concat(n.inn)) for (const l of e.links) ls.push(l);
    ls.sort((a, b) => b.calls - a.calls || a.key.localeCompare(b.key));
    insp.appendChild(el('h4', null, 'Its messages (' + ls.length + ' kinds)'));
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
    insp.appendChild(el('h3', { class: 'band-' + e.band }, label(e.sender) + ' → ' + label(e.receiver)));
    const t = el('table');
    kv(t, 'calls', e.calls, 'calls');
    kv(t, 'net time', e.net_time.toLocaleString('en') + ' ' + UNIT, 'active_time');
    kv(t, 'aggregate time', e.aggregate_time.toLocaleString('en') + ' ' + UNIT);
    kv(t, 'activity level', pct(e.level), 'level');
    kv(t, 'rank', edgeRank.get(e.key), 'rank');
    kv(t, 'bytes', e.bytes);
    insp.appendChild(t);
    insp.appendChild(el('h4', null, 'Messages'));
    insp.appendChild(linkTable(e.links));
  }
  function linkTable(ls) {
    const t = el('table', { class: 'links' });
    const h = el('tr');
    for (const c of ['sender → receiver', 'method', 'calls', 'net', '']) h.appendChild(el('th', null, c));
    t.appendChild(h);
    for (const l of ls) {
      const tr = el('tr', { 'data-link': l.key });
      tr.appendChild(el('td', null, label(l.s) + ' → ' + label(l.r)));
      tr.appendChild(el('td', null, methodName(l.m)));
      tr.appendChild(el('td', null, l.calls));
      tr.appendChild(el('td', null, l.net));
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
      for (const v of [m.order, methodName(m.method), label(m.sender) + ' → ' + label(m.receiver), m.net_time, m.aggregate_time]) tr.appendChild(el('td', null, v));
      t.appendChild(tr);
    }
    return t;
  }

  // ---------- filtering ----------
  const filters = { message: new Set(), instance: new Set(), method: new Set(), class: new Set() };
  const instHidden = (id) => {
    if (filters.instance.has(String(id))) return true;
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
    else if (kind === 'method') opts = D.methods.filter((m) => m.calls > 0).map((m) => [String(m.id), m.class + '.' + m.method + ' ' + m.signature + ' ×' + m.calls]);
    else opts = D.classes.map((c) => [c.class, c.class + ' (' + c.instances + ')']);
    for (const [v, t] of opts) sel.appendChild(el('option', { value: v }, t));
  }
  function addFilter(kind, v) {
    filters[kind].add(String(v));
    applyFilters();
  }
  function applyFilters() {
    const list = $('filter-list');
    list.textContent = '';
    for (const kind of Object.keys(filters)) for (const v of filters[kind]) {
      const li = el('li', { 'data-kind': kind, 'data-value': v }, filterLabel(kind, v));
      li.appendChild(button('show', () => { filters[kind].delete(v); applyFilters(); }));
      list.appendChild(li);
    }
    let visEdges = 0, visMsgs = 0;
    for (const n of nodes) n.visible = false;
    for (const e of edges) {
      let calls = 0;
      for (const l of e.links) if (linkVisible(l)) calls += l.calls;
      if (e.other > 0 && !instHidden(e.sender) && !instHidden(e.receiver)) calls += e.other;
      e.visibleCalls = calls;
      const vis = calls > 0;
      e.visible = vis;
      e.g.classList.toggle('hidden', !vis);
      e.text.textContent = '×' + calls;
      if (vis) {
        visEdges++; visMsgs += calls;
        nodeById.get(e.sender).visible = true; nodeById.get(e.receiver).visible = true;
      }
    }
    let visNodes = 0;
    for (const n of nodes) { n.g.classList.toggle('hidden', !n.visible); if (n.visible) visNodes++; }
    const vc = $('visible-count');
    vc.dataset.instances = visNodes; vc.dataset.edges = visEdges; vc.dataset.messages = visMsgs;
    vc.textContent = visNodes + ' instances, ' + visEdges + ' edges, ' + visMsgs.toLocaleString('en') + ' messages visible';
    applyHighlight();
  }
  $('filter-kind').addEventListener('change', fillTargets);
  $('filter-add').addEventListener('click', () => { const v = $('filter-target').value; if (v) addFilter($('filter-kind').value, v); });
  $('filter-clear').addEventListener('click', () => { for (const k in filters) filters[k].clear(); applyFilters(); });

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

  // ---------- animation (messages in start order) ----------
  const anim = { pos: -1, timer: null, cur: null };
  const msgs = D.messages;
  const msgVisible = (m) => linkVisible({ s: m.sender, r: m.receiver, m: m.method, key: m.sender + '>' + m.receiver + ':' + m.method });
  function showStep() {
    if (anim.cur) { for (const g of anim.cur) g.classList.remove('active'); anim.cur = null; }
    const box = $('anim-step');
    $('anim-pos').textContent = (anim.pos + 1) + ' / ' + msgs.length;
    if (anim.pos < 0 || anim.pos >= msgs.length) { box.textContent = ''; delete box.dataset.order; return; }
    const m = msgs[anim.pos];
    const e = edgeByKey.get(m.sender + '>' + m.receiver), r = nodeById.get(m.receiver);
    anim.cur = [];
    if (e) { e.g.classList.add('active'); anim.cur.push(e.g); }
    if (r) { r.g.classList.add('active'); anim.cur.push(r.g); }
    box.dataset.order = m.order; box.dataset.index = anim.pos;
    box.textContent = 'message ' + m.order + ': ' + methodName(m.method) + '  ' + label(m.sender) + ' → ' + label(m.receiver) + '  (' + m.aggregate_time + ' ' + UNIT + ')';
  }
  function step(dir) {
    let p = anim.pos;
    do { p += dir; } while (p >= 0 && p < msgs.length && !msgVisible(msgs[p]));
    if (p < 0 || p >= msgs.length) return false;
    anim.pos = p; showStep(); return true;
  }
  const speed = () => Number($('anim-speed').value);
  function tick() { if (!step(1)) { stop(); return; } anim.timer = setTimeout(tick, 1000 / speed()); }
  function stop() { clearTimeout(anim.timer); anim.timer = null; $('anim-play').textContent = 'Play'; }
  $('anim-play').addEventListener('click', () => {
    if (anim.timer) { stop(); return; }
    $('anim-play').textContent = 'Pause';
    if (anim.pos >= msgs.length - 1) anim.pos = -1;
    tick();
  });
  $('anim-next').addEventListener('click', () => step(1));
  $('anim-prev').addEventListener('click', () => step(-1));
  $('anim-reset').addEventListener('click', () => { stop(); anim.pos = -1; showStep(); });
  const showSpeed = () => { $('anim-speed-value').textContent = speed() + ' messages/s'; };
  $('anim-speed').addEventListener('input', showSpeed);

  // ---------- hints ----------
  (function hints() {
    const box = $('hints');
    if (!D.hints.length) { box.appendChild(el('p', { class: 'muted' }, 'No hints: nothing is above the threshold.')); return; }
    const ul = el('ul');
    for (const h of D.hints) {
      const li = el('li', { 'data-kind': h.kind });
      li.appendChild(el('span', { class: 'kind' }, h.kind));
      li.appendChild(document.createTextNode(' '));
      li.appendChild(el('b', null, h.subject));
      li.appendChild(document.createTextNode(': ' + h.reason));
      ul.appendChild(li);
    }
    box.appendChild(ul);
  })();

  // ---------- statistics tables ----------
  const ROWS = 1000;
  function table(id, title, cols, rows, note) {
    const wrap = $('tables');
    wrap.appendChild(el('h3', null, title + (note ? ' — ' + note : '')));
    const div = el('div', { class: 'tablewrap' });
    const t = el('table', { class: 'stats', id: 'table-' + id });
    const thead = el('thead'), tr = el('tr'), tbody = el('tbody');
    let sortCol = null, asc = true;
    const render = () => {
      tbody.textContent = '';
      for (const r of rows.slice(0, ROWS)) {
        const row = el('tr');
        for (const c of cols) {
          const v = c.get(r);
          row.appendChild(el('td', c.num ? null : { class: 's' }, c.fmt ? c.fmt(v, r) : (c.num ? num(v) : (v === null || v === undefined ? '' : v))));
        }
        tbody.appendChild(row);
      }
      if (rows.length > ROWS) {
        const row = el('tr'); row.appendChild(el('td', { colspan: cols.length, class: 's' }, '… ' + (rows.length - ROWS) + ' more rows (sort to see others first)'));
        tbody.appendChild(row);
      }
    };
    cols.forEach((c, k) => {
      const th = el('th', { 'data-key': c.key, class: c.num ? '' : 's', title: 'sort by ' + c.label }, c.label);
      th.addEventListener('click', () => {
        asc = sortCol === k ? !asc : !c.num; // numbers: largest first
        sortCol = k;
        const dir = asc ? 1 : -1;
        rows.sort((a, b) => {
          const x = c.get(a), y = c.get(b);
          if (x === y) return 0;
          if (x === null || x === undefined) return 1;
          if (y === null || y === undefined) return -1;
          return (c.num ? x - y : String(x).localeCompare(String(y))) * dir;
        });
        for (const o of thead.querySelectorAll('th')) o.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
        render();
      });
      tr.appendChild(th);
    });
    thead.appendChild(tr); t.append(thead, tbody); div.appendChild(t); wrap.appendChild(div);
    render();
  }
  const P = (v) => pct(v);
  table('instances', 'Instances', [
    { key: 'oid', label: 'object ID', num: true, get: (i) => i.kind === 'root' ? null : i.oid },
    { key: 'label', label: 'instance', get: (i) => i.label },
    { key: 'class', label: 'class', get: (i) => i.class },
    { key: 'size', label: 'size (B)', num: true, get: (i) => i.size },
    { key: 'active_time', label: 'active time (' + UNIT + ')', num: true, get: (i) => i.active_time },
    { key: 'level', label: 'activity', num: true, get: (i) => i.level, fmt: P },
    { key: 'received', label: 'received', num: true, get: (i) => i.received },
    { key: 'sent', label: 'sent', num: true, get: (i) => i.sent },
    { key: 'neighbours', label: 'adjacency', num: true, get: (i) => i.neighbours },
    { key: 'cyclic', label: 'cyclic', num: true, get: (i) => i.cyclic },
  ], D.instances.slice(), D.instances.length < D.totals.instances ? 'the ' + D.instances.length + ' most active of ' + D.totals.instances : '');
  table('classes', 'Average activity per class', [
    { key: 'class', label: 'class', get: (c) => c.class },
    { key: 'instances', label: 'instances', num: true, get: (c) => c.instances },
    { key: 'messages', label: 'messages', num: true, get: (c) => c.messages },
    { key: 'active_time', label: 'active time', num: true, get: (c) => c.active_time },
    { key: 'mean_level', label: 'average activity', num: true, get: (c) => c.mean_level, fmt: P },
    { key: 'max_level', label: 'max activity', num: true, get: (c) => c.max_level, fmt: P },
    { key: 'total_size', label: 'total size (B)', num: true, get: (c) => c.total_size },
  ], D.classes.slice());
  table('methods', 'Methods (average activity per signature)', [
    { key: 'method', label: 'method', get: (m) => m.class + '.' + m.method },
    { key: 'signature', label: 'signature', get: (m) => m.signature },
    { key: 'calls', label: 'calls', num: true, get: (m) => m.calls },
    { key: 'total', label: 'total net', num: true, get: (m) => m.net_time.total },
    { key: 'min', label: 'min', num: true, get: (m) => m.net_time.min },
    { key: 'max', label: 'max', num: true, get: (m) => m.net_time.max },
    { key: 'mean', label: 'mean', num: true, get: (m) => m.net_time.mean },
    { key: 'std_dev', label: 'std-dev', num: true, get: (m) => m.net_time.std_dev },
    { key: 'mean_level', label: 'average activity', num: true, get: (m) => m.calls ? m.level / m.calls : 0, fmt: P },
    { key: 'level', label: 'activity', num: true, get: (m) => m.level, fmt: P },
    { key: 'aggregate', label: 'aggregate total', num: true, get: (m) => m.aggregate_time.total },
    { key: 'size', label: 'mean size (B)', num: true, get: (m) => m.size.mean },
    { key: 'cyclic', label: 'cyclic', num: true, get: (m) => m.cyclic },
  ], D.methods.filter((m) => m.calls > 0));
  table('edges', 'Messages per sender → receiver', [
    { key: 'sender', label: 'sender', get: (e) => label(e.sender) },
    { key: 'receiver', label: 'receiver', get: (e) => label(e.receiver) },
    { key: 'calls', label: 'calls', num: true, get: (e) => e.calls },
    { key: 'net_time', label: 'net time', num: true, get: (e) => e.net_time },
    { key: 'level', label: 'activity', num: true, get: (e) => e.level, fmt: P },
    { key: 'aggregate_time', label: 'aggregate time', num: true, get: (e) => e.aggregate_time },
    { key: 'bytes', label: 'bytes', num: true, get: (e) => e.bytes },
    { key: 'cyclic', label: 'cyclic', get: (e) => e.cyclic ? 'yes' : '' },
  ], edges.slice(), D.edges.length < D.totals.edges ? D.edges.length + ' of ' + D.totals.edges : '');
  const total = D.totals.total_time || 1;
  table('messages', 'Messages in order', [
    { key: 'order', label: 'order', num: true, get: (m) => m.order },
    { key: 'method', label: 'method', get: (m) => methodName(m.method) },
    { key: 'sender', label: 'sender', get: (m) => label(m.sender) },
    { key: 'receiver', label: 'receiver', get: (m) => label(m.receiver) },
    { key: 'size', label: 'size (B)', num: true, get: (m) => m.size },
    { key: 'net_time', label: 'net time', num: true, get: (m) => m.net_time },
    { key: 'level', label: 'activity', num: true, get: (m) => m.level, fmt: P },
    { key: 'aggregate_level', label: 'aggregate activity', num: true, get: (m) => m.aggregate_time / total, fmt: P },
    { key: 'depth', label: 'depth', num: true, get: (m) => m.depth },
    { key: 'cyclic', label: 'cyclic', get: (m) => m.cyclic ? 'yes' : '' },
  ], msgs.slice(), msgs.length < D.messages_total ? 'the ' + msgs.length + ' longest of ' + D.messages_total.toLocaleString('en') : '');

  // ---------- start ----------
  if (edges.length > 300) {
    // Dense graphs: lighter edges, counts on demand (hover shows them anyway).
    svg.classList.add('dense', 'no-counts');
    $('show-counts').checked = false;
  }
  layout();
  drawAll();
  fillTargets();
  applyFilters();
  showStep();
  showSpeed();
  fit();
  window.addEventListener('resize', fit);
  window.revyReport = { fit: fit, nodes: nodes, edges: edges, filters: filters, ready: true };
  document.body.dataset.ready = '1';
})();
