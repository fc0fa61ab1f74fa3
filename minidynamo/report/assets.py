"""The report page's inline style sheet and script (nothing is fetched: the page works offline).

The script does four things: a break marker (`.brk`) shows its category, reason and inlining stack in the
`#brk-detail` panel when clicked, focused or hovered, Escape or a click elsewhere closes it; a graph drawing
(fitted to its box by the style sheet) zooms with its +/−/fit buttons or Ctrl+wheel and pans by dragging
(its viewBox changes); a link to a folded function section (`details.fn`) opens it; and when the page has
been laid out and painted it stores `performance.now()` in `document.body.dataset.rendered`, which the
browser tests read.
"""

CSS = """
:root { --ink:#1f2328; --mute:#59636e; --line:#d1d9e0; --bg:#f6f8fa; --acc:#0969da; --brk:#cf222e;
  --in:#ddf4ff; --inb:#54aeff; --op:#ffffff; --opb:#8c959f; --const:#eaeef2; --ret:#dafbe1; --retb:#4ac26b;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--ink); background:#fff; }
header.top { background:#24292f; color:#fff; padding:14px 28px; }
header.top h1 { margin:0; font-size:19px; font-weight:600; }
header.top .sub { color:#c9d1d9; font-size:13px; }
main { max-width:1180px; margin:0 auto; padding:8px 28px 60px; }
h2 { font-size:20px; margin:28px 0 6px; padding-bottom:6px; border-bottom:1px solid var(--line); }
h3 { font-size:15px; margin:20px 0 6px; }
h4 { font-size:14px; margin:14px 0 4px; }
code, pre { font-family:var(--mono); font-size:12.5px; }
pre { background:var(--bg); border:1px solid var(--line); border-radius:6px; padding:8px 10px; overflow:auto; margin:4px 0; }
a { color:var(--acc); text-decoration:none; } a:hover { text-decoration:underline; }
.stats { display:flex; flex-wrap:wrap; gap:8px; margin:6px 0 10px; }
.stat { background:var(--bg); border:1px solid var(--line); border-radius:16px; padding:1px 11px; font-size:13px; }
.stat b { font-weight:600; }
.stat.bad { border-color:#ffcecb; background:#ffebe9; }
table.index { border-collapse:collapse; width:100%; margin:10px 0; }
table.index th, table.index td { text-align:left; padding:5px 10px; border-bottom:1px solid var(--line); }
table.index th { background:var(--bg); font-weight:600; font-size:13px; }
table.index td.n { text-align:right; font-variant-numeric:tabular-nums; }
.source { padding:6px 0; line-height:1.45; }
.source .ln { display:block; padding:0 10px 0 0; white-space:pre; }
.source .ln.hasbrk { background:#fff5f5; }
.source .no { display:inline-block; width:44px; text-align:right; color:var(--mute); padding-right:10px; user-select:none; }
.brk { font:600 11px/1 system-ui, sans-serif; color:#fff; background:var(--brk); border:0; border-radius:9px;
  padding:3px 7px; margin:0 6px 0 4px; cursor:pointer; vertical-align:1px; }
.brk:hover, .brk:focus { outline:2px solid #ff8182; }
.brk.off { visibility:hidden; }
ul.breaks { list-style:none; padding:0; margin:4px 0; }
ul.breaks li { margin:6px 0; }
.cat { display:inline-block; font:600 12px/1.6 var(--mono); background:#ffebe9; color:var(--brk);
  border-radius:4px; padding:0 6px; margin-right:6px; }
.piece { border:1px solid var(--line); border-radius:8px; margin:16px 0; padding:4px 16px 12px; }
.piece h3 { margin:10px 0 2px; }
.piece .kind { font:600 11px/1.6 system-ui; text-transform:uppercase; letter-spacing:.04em; color:var(--mute); }
.meta { color:var(--mute); font-size:13px; }
.piece-body { display:grid; grid-template-columns:minmax(240px, 42%) minmax(0, 1fr); gap:18px; align-items:start; }
.piece-info { min-width:0; }
@media (max-width: 900px) { .piece-body { grid-template-columns:1fr; } }
.graph-wrap { overflow:hidden; border:1px solid var(--line); border-radius:6px; background:#fcfdfe; margin:8px 0; }
svg.dag { display:block; margin:0 auto; max-width:100%; height:auto; max-height:70vh; cursor:grab; touch-action:none; }
svg.dag.panning { cursor:grabbing; }
.graph-tools { display:flex; justify-content:flex-end; gap:3px; padding:3px 4px; border-bottom:1px solid var(--line); background:var(--bg); }
.graph-tools button { font:600 12px/1 system-ui, sans-serif; min-width:24px; height:22px; padding:0 6px; color:var(--ink);
  background:#fff; border:1px solid var(--line); border-radius:4px; cursor:pointer; }
.graph-tools button:hover { border-color:var(--acc); }
details.fn > summary { list-style:none; cursor:pointer; }
details.fn > summary::-webkit-details-marker { display:none; }
details.fn > summary h2::before { content:"▸ "; color:var(--mute); }
details.fn[open] > summary h2::before { content:"▾ "; }
svg.dag .edge { fill:none; stroke:#8c959f; stroke-width:1.2; }
svg.dag rect { stroke-width:1.2; }
svg.dag .input > rect { fill:var(--in); stroke:var(--inb); }
svg.dag .op > rect { fill:var(--op); stroke:var(--opb); }
svg.dag .const > rect { fill:var(--const); stroke:var(--opb); stroke-dasharray:3 2; }
svg.dag .ret > rect { fill:var(--ret); stroke:var(--retb); }
svg.dag rect.subframe { fill:#f6f8fa; stroke:#afb8c1; stroke-dasharray:4 3; }
svg.dag text { font-family:var(--mono); font-size:11px; fill:var(--ink); }
svg.dag text.spec { fill:var(--mute); font-size:10.5px; }
svg.dag text.sublabel { fill:var(--mute); font-size:10px; font-style:italic; }
svg.dag .node:hover > rect { stroke:var(--acc); stroke-width:2; }
details { margin:6px 0; }
details > summary { cursor:pointer; font-weight:600; font-size:13.5px; color:#24292f; }
ul.guards { margin:4px 0; padding-left:20px; }
ul.guards li { margin:2px 0; }
ul.guards code { color:var(--mute); font-size:11.5px; }
dl.gloss { display:grid; grid-template-columns:max-content 1fr; gap:2px 12px; margin:6px 0; font-size:13px; }
dl.gloss dt { font-family:var(--mono); font-size:12px; } dl.gloss dd { margin:0; color:var(--mute); }
.recompile { color:var(--ink); }
#brk-detail { position:absolute; z-index:10; max-width:560px; background:#fff; border:1px solid var(--line);
  border-left:4px solid var(--brk); border-radius:6px; box-shadow:0 8px 24px rgba(140,149,159,.3); padding:8px 12px; }
#brk-detail[hidden] { display:none; }
#brk-detail .reason, #brk-detail .hint { margin:4px 0; }
#brk-detail .hint { color:var(--mute); }
#brk-detail pre { margin:4px 0 0; white-space:pre-wrap; }
.legend { display:flex; gap:14px; font-size:12px; color:var(--mute); margin:2px 0 6px; }
.legend i { display:inline-block; width:12px; height:10px; border:1px solid; border-radius:3px; margin-right:4px; vertical-align:-1px; }
"""

JS = """
(function () {
  var panel = document.getElementById('brk-detail');
  function show(btn) {
    panel.querySelector('.cat').textContent = btn.dataset.category;
    panel.querySelector('.where').textContent = btn.dataset.where;
    panel.querySelector('.reason').textContent = (btn.dataset.code ? btn.dataset.code + ': ' : '') + btn.dataset.reason;
    panel.querySelector('.hint').textContent = btn.dataset.hint ? 'hint: ' + btn.dataset.hint : '';
    var stack = btn.dataset.stack || '';
    var pre = panel.querySelector('pre');
    pre.textContent = stack ? 'inlined from:\\n' + stack : '';
    pre.hidden = !stack;
    panel.hidden = false;
    // Beside the marker's line, at the right of its box (code lines are short), else under the marker.
    var r = btn.getBoundingClientRect(), box = (btn.closest('pre') || btn.parentNode).getBoundingClientRect();
    var left = box.right - panel.offsetWidth - 12;
    var beside = btn.closest('pre') && left > r.right + 320;
    panel.style.left = ((beside ? left : Math.max(8, r.left)) + window.scrollX) + 'px';
    panel.style.top = ((beside ? r.top - 6 : r.bottom + 6) + window.scrollY) + 'px';
    panel.dataset.owner = btn.id;
  }
  document.addEventListener('click', function (e) {
    var btn = e.target.closest('.brk');
    if (btn) { show(btn); e.preventDefault(); return; }
    if (!e.target.closest('#brk-detail')) panel.hidden = true;
  });
  document.querySelectorAll('.brk').forEach(function (b) {
    b.addEventListener('focus', function () { show(b); });
    b.addEventListener('mouseenter', function () { show(b); });
  });
  document.addEventListener('keydown', function (e) { if (e.key === 'Escape') panel.hidden = true; });
  // A link into a folded function section (the index, a recompile's piece) opens it first.
  function reveal(id) {
    var target = id && document.getElementById(id);
    var fold = target && (target.querySelector(':scope > details.fn') || target.closest('details.fn'));
    if (fold && !fold.open) fold.open = true;
    if (target) target.scrollIntoView({block: 'start'});
  }
  document.querySelectorAll('a[href^="#"]').forEach(function (a) {
    a.addEventListener('click', function (e) { e.preventDefault(); reveal(a.getAttribute('href').slice(1));
      history.replaceState(null, '', a.getAttribute('href')); });
  });
  if (location.hash) reveal(location.hash.slice(1));
  // Graph drawings: the whole graph fits its box at first; zoom and pan change the viewBox.
  document.querySelectorAll('.graph-wrap').forEach(function (wrap) {
    var svg = wrap.querySelector('svg.dag');
    if (!svg) return;
    var full = svg.getAttribute('viewBox').split(' ').map(Number), vb = full.slice();
    function show() {
      vb[2] = Math.min(vb[2], full[2]); vb[3] = Math.min(vb[3], full[3]);
      vb[0] = Math.max(full[0], Math.min(vb[0], full[0] + full[2] - vb[2]));
      vb[1] = Math.max(full[1], Math.min(vb[1], full[1] + full[3] - vb[3]));
      svg.setAttribute('viewBox', vb.map(function (v) { return v.toFixed(1); }).join(' '));
    }
    function zoom(f, cx, cy) {
      if (cx === undefined) { cx = vb[0] + vb[2] / 2; cy = vb[1] + vb[3] / 2; }
      var w = Math.min(full[2], vb[2] * f), h = Math.min(full[3], vb[3] * f);
      vb = [cx - (cx - vb[0]) * w / vb[2], cy - (cy - vb[1]) * h / vb[3], w, h];
      show();
    }
    function units() {     // drawing units per screen pixel (the drawing is scaled to fit: 'meet')
      var r = svg.getBoundingClientRect();
      return Math.max(vb[2] / Math.max(1, r.width), vb[3] / Math.max(1, r.height));
    }
    wrap.querySelectorAll('.graph-tools button').forEach(function (b) {
      b.addEventListener('click', function () {
        if (b.dataset.zoom === 'fit') { vb = full.slice(); show(); }
        else zoom(b.dataset.zoom === 'in' ? 0.6 : 1 / 0.6);
      });
    });
    svg.addEventListener('wheel', function (e) {
      if (!e.ctrlKey && !e.metaKey) return;      // a plain wheel scrolls the page
      e.preventDefault();
      var r = svg.getBoundingClientRect(), u = units();
      zoom(e.deltaY < 0 ? 0.8 : 1.25, vb[0] + (e.clientX - r.left) * u, vb[1] + (e.clientY - r.top) * u);
    }, {passive: false});
    var drag = null;
    svg.addEventListener('pointerdown', function (e) {
      drag = {x: e.clientX, y: e.clientY, vb: vb.slice(), u: units()};
      svg.classList.add('panning');
    });
    window.addEventListener('pointermove', function (e) {
      if (!drag) return;
      vb[0] = drag.vb[0] - (e.clientX - drag.x) * drag.u; vb[1] = drag.vb[1] - (e.clientY - drag.y) * drag.u;
      show();
    });
    window.addEventListener('pointerup', function () { drag = null; svg.classList.remove('panning'); });
  });
  requestAnimationFrame(function () { requestAnimationFrame(function () {
    document.body.dataset.rendered = performance.now().toFixed(1);
  }); });
})();
"""
