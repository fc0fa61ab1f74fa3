"""The report page's inline style sheet and script (nothing is fetched: the page works offline).

The script does three things: a break marker (`.brk`) shows its category, reason and inlining stack in the
`#brk-detail` panel when clicked, focused or hovered; Escape or a click elsewhere closes it; and when the
page has been laid out and painted it stores `performance.now()` in `document.body.dataset.rendered`,
which the browser tests read.
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
.graph-wrap { overflow:auto; max-height:640px; border:1px solid var(--line); border-radius:6px; background:#fcfdfe; margin:8px 0; }
svg.dag { display:block; margin:0 auto; }
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
#brk-detail .reason { margin:4px 0; }
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
    panel.querySelector('.reason').textContent = btn.dataset.reason;
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
  requestAnimationFrame(function () { requestAnimationFrame(function () {
    document.body.dataset.rendered = performance.now().toFixed(1);
  }); });
})();
"""
