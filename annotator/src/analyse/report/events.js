// Revy report page, events view (`[[events]]`): one row per event type (count, latency
// p50/p90/p99/max, work, waiting, objects and bytes, threads, share of the run's work) and
// the slowest event's path across threads as a strip: one lane per thread, its calls as
// bars, an arrow from each call to the next. Reads only #revy-data's `events`; separate
// from report.js so the graph's code and this view change independently.
(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('revy-data').textContent);
  const E = D.events;
  const view = document.getElementById('events-view');
  if (!E || !view) return;
  const NS = 'http://www.w3.org/2000/svg'; // the SVG namespace name, not a fetch
  const NS_PER = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 }[D.trace.unit] || 1;
  const el = (tag, attrs, text) => {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const sv = (tag, attrs) => {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  };
  const NF = [0, 1, 2].map((d) => new Intl.NumberFormat('en', { minimumFractionDigits: d, maximumFractionDigits: d }));
  const fmtT = (t) => {
    const ns = t * NS_PER;
    const [v, u] = ns >= 1e9 ? [ns / 1e9, 's'] : ns >= 1e6 ? [ns / 1e6, 'ms'] : ns >= 1e3 ? [ns / 1e3, 'µs'] : [ns, 'ns'];
    return NF[u === 'ns' || v >= 100 ? 0 : v >= 10 ? 1 : 2].format(v) + ' ' + u;
  };
  const pct = (x) => (x * 100).toFixed(1) + ' %';
  // Each cell keeps its raw value in data-v (what the browser test compares with the JSON).
  const DISTS = ['latency', 'work', 'waiting'], QS = ['p50', 'p90', 'p99', 'max'];
  const COLS = [['type', (s) => s.type, String], ['count', (s) => s.count, NF[0].format]]
    .concat(...DISTS.map((d) => QS.map((q) => [d + '.' + q, (s) => s[d][q], fmtT])))
    .concat([['objects', (s) => s.objects, NF[0].format], ['bytes', (s) => s.bytes, NF[0].format],
      ['threads', (s) => s.threads, NF[0].format], ['work_share', (s) => s.work_share, pct]]);

  function typeTable() {
    const t = el('table', { class: 'stats', id: 'table-events' });
    const head = el('tr');
    for (const [k] of COLS) head.appendChild(el('th', { 'data-key': k }, k.replace('.', ' ')));
    t.appendChild(el('thead')).appendChild(head);
    const body = t.appendChild(el('tbody'));
    for (const s of E.types) {
      const tr = el('tr', { 'data-type': s.type });
      for (const [k, get, fmt] of COLS) {
        const v = get(s);
        tr.appendChild(el('td', { 'data-key': k, 'data-v': String(v) }, fmt(v)));
      }
      body.appendChild(tr);
    }
    const bg = el('tr', { class: 'background' });
    bg.appendChild(el('td', { 'data-key': 'type' }, 'background (no event)'));
    bg.appendChild(el('td', { colspan: COLS.length - 2 }, 'work ' + fmtT(E.background.work)));
    bg.appendChild(el('td', { 'data-key': 'work_share', 'data-v': String(E.background.share) }, pct(E.background.share)));
    body.appendChild(bg);
    return t;
  }

  // The slowest event of all types: its calls per thread on a strip scaled to its latency.
  function slowestStrip() {
    let worst = null;
    for (const s of E.types) for (const r of s.slowest) if (r.timeline && (!worst || r.latency > worst.latency)) worst = r;
    const box = el('div', { id: 'event-path' });
    if (!worst) { box.appendChild(el('p', { class: 'muted' }, 'No event with its calls kept.')); return box; }
    const tids = [...new Set(worst.timeline.map((s) => s.tid))];
    const W = 900, LANE = 24, LEFT = 110, H = tids.length * LANE + 8;
    const span = Math.max(1, worst.end - worst.start);
    const x = (t) => LEFT + (t - worst.start) / span * (W - LEFT - 10);
    box.appendChild(el('h3', null, 'Slowest ' + worst.type + ' (#' + worst.id + '): ' + fmtT(worst.latency) +
      ', work ' + fmtT(worst.work) + ', waiting ' + fmtT(worst.waiting) + ', ' + tids.length + ' threads'));
    const svg = sv('svg', { width: W, height: H, role: 'img', 'aria-label': 'slowest event across threads' });
    const defs = svg.appendChild(sv('defs'));
    const mk = defs.appendChild(sv('marker', { id: 'ev-arrow', viewBox: '0 0 6 6', refX: 6, refY: 3, markerWidth: 6, markerHeight: 6, orient: 'auto' }));
    mk.appendChild(sv('path', { d: 'M0,0 L6,3 L0,6 z', fill: '#c62828' }));
    tids.forEach((tid, k) => {
      const lab = svg.appendChild(sv('text', { x: 4, y: k * LANE + 18, 'font-size': 11 }));
      lab.textContent = 'thread ' + tid;
      svg.appendChild(sv('line', { x1: LEFT, x2: W - 10, y1: k * LANE + 14, y2: k * LANE + 14, stroke: '#ddd' }));
    });
    const lane = (tid) => tids.indexOf(tid) * LANE + 6;
    let prev = null;
    for (const s of worst.timeline) {
      const r = svg.appendChild(sv('rect', { class: 'event-seg', x: x(s.start), y: lane(s.tid), width: Math.max(2, x(s.end) - x(s.start)), height: 16, fill: '#1f5fbf', 'data-tid': s.tid, 'data-start': s.start, 'data-end': s.end }));
      r.appendChild(sv('title')).textContent = s.method + ' on thread ' + s.tid + ': ' + fmtT(s.end - s.start);
      if (prev) svg.appendChild(sv('line', { class: 'event-flow', x1: x(prev.end), y1: lane(prev.tid) + 8, x2: x(s.start), y2: lane(s.tid) + 8, stroke: '#c62828', 'marker-end': 'url(#ev-arrow)' }));
      prev = s;
    }
    box.appendChild(svg);
    return box;
  }

  view.hidden = false;
  view.style.padding = '4px 12px';
  view.appendChild(typeTable());
  view.appendChild(slowestStrip());
  if (E.late_records) view.appendChild(el('p', { class: 'muted' }, E.late_records + ' records applied out of time order'));
})();
