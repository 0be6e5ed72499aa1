// Layout probe for the report page, appended to a copy of it by tests/cli/report_cli_test.cpp and
// run by headless Chromium (--dump-dom). It measures what the rendered page looks like and writes
// the result as JSON into <pre id="layout-probe">:
//   overlaps:  pairs of text boxes that overlap (each a text's first 40 characters), where a text
//              box is a rendered line of an HTML text node (its client rect) or an SVG <text>
//              (its bounding box in its own coordinates, transformed to the page, so rotated
//              labels are tested as rotated rectangles);
//   schedule:  per diagram of the schedule section, the width its compute boxes (rectangles, and
//              the paths of narrow ones) span over the section's width: {shared, zoom}, the
//              boxes on the shared scale and those of its zoomed inset (g.zoom; 0 if none);
//   untitled:  chart marks (rect, circle, path, polyline, polygon in an SVG) with no <title>, not
//              counting frames and backgrounds (no fill or white), legend keys (class "key") and
//              gridlines (line elements);
//   wrapped:   numbers whose unit went to the next line (a digit, a space, then %, a word that
//              starts upper case, or s, ms, us, µs, ns).
(function () {
  const kTolerance = 0.5;  // px each box is shrunk by: touching is not overlapping
  const boxes = [];
  function quad(points, text) {
    const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
    boxes.push({
      points, text: text.trim().slice(0, 40),
      x0: Math.min(...xs), x1: Math.max(...xs), y0: Math.min(...ys), y1: Math.max(...ys)
    });
  }
  function shrink(r) {
    return [[r.left + kTolerance, r.top + kTolerance], [r.right - kTolerance, r.top + kTolerance],
            [r.right - kTolerance, r.bottom - kTolerance],
            [r.left + kTolerance, r.bottom - kTolerance]];
  }
  // SVG texts, rotated or not.
  for (const t of document.querySelectorAll('svg text')) {
    if (!t.textContent.trim()) continue;
    const b = t.getBBox(), m = t.getScreenCTM();
    if (b.width <= 0 || b.height <= 0) continue;
    const corners = [[b.x + kTolerance, b.y + kTolerance],
                     [b.x + b.width - kTolerance, b.y + kTolerance],
                     [b.x + b.width - kTolerance, b.y + b.height - kTolerance],
                     [b.x + kTolerance, b.y + b.height - kTolerance]];
    quad(corners.map(([x, y]) => [m.a * x + m.c * y + m.e + window.scrollX,
                                  m.b * x + m.d * y + m.f + window.scrollY]),
         t.textContent);
  }
  // HTML text, line by line.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim() || n.parentElement.closest('svg, title, style, script, pre')) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects())
      if (r.width > 1 && r.height > 1)
        quad(shrink({left: r.left + window.scrollX, right: r.right + window.scrollX,
                     top: r.top + window.scrollY, bottom: r.bottom + window.scrollY}),
             n.textContent);
  }
  // Two convex quadrilaterals overlap unless an edge normal of one separates them.
  function separated(a, b) {
    for (const poly of [a, b])
      for (let i = 0; i < 4; ++i) {
        const p = poly[i], q = poly[(i + 1) % 4];
        const nx = q[1] - p[1], ny = p[0] - q[0];
        const proj = (pts) => pts.map(([x, y]) => x * nx + y * ny);
        const pa = proj(a), pb = proj(b);
        if (Math.max(...pa) <= Math.min(...pb) || Math.max(...pb) <= Math.min(...pa)) return true;
      }
    return false;
  }
  boxes.sort((a, b) => a.x0 - b.x0);
  const overlaps = [];
  for (let i = 0; i < boxes.length; ++i)
    for (let j = i + 1; j < boxes.length && boxes[j].x0 < boxes[i].x1; ++j) {
      const a = boxes[i], b = boxes[j];
      if (a.y1 <= b.y0 || b.y1 <= a.y0) continue;
      if (!separated(a.points, b.points)) overlaps.push([a.text, b.text]);
    }
  const schedule = [];
  const section = document.querySelector('#schedule');
  if (section) {
    const width = section.getBoundingClientRect().width;
    const span = (marks) => {
      let x0 = Infinity, x1 = -Infinity;
      for (const r of marks) {
        if (r.classList.contains('key')) continue;
        const b = r.getBoundingClientRect();
        x0 = Math.min(x0, b.left);
        x1 = Math.max(x1, b.right);
      }
      return x1 > x0 ? (x1 - x0) / width : 0;
    };
    const boxes = 'rect.F, rect.B, rect.W, rect.FB, rect.O, path.F, path.B, path.W, path.FB, path.O';
    for (const svg of section.querySelectorAll('svg')) {
      const all = [...svg.querySelectorAll(boxes)];
      schedule.push({
        shared: span(all.filter((m) => !m.closest('g.zoom'))),
        zoom: span(all.filter((m) => m.closest('g.zoom')))
      });
    }
  }
  const untitled = [];
  for (const m of document.querySelectorAll(
           'svg rect, svg circle, svg path, svg polyline, svg polygon')) {
    if (m.closest('defs, clipPath') || m.classList.contains('key')) continue;
    const fill = (m.getAttribute('fill') || '').toLowerCase();
    if (m.tagName === 'rect' && (fill === 'none' || fill === '#fff' || fill === 'white')) continue;
    if (!m.querySelector(':scope > title'))
      untitled.push(m.outerHTML.slice(0, 80));
  }
  const wrapped = [];
  const numbers = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = numbers.nextNode(); n; n = numbers.nextNode()) {
    if (n.parentElement.closest('svg, title, style, script, pre')) continue;
    for (const m of n.textContent.matchAll(/\d[ \u00a0](%|[A-Z]|(?:s|ms|us|\u00b5s|ns)\b)/g)) {
      const at = (i) => {
        const r = document.createRange();
        r.setStart(n, i);
        r.setEnd(n, i + 1);
        return r.getBoundingClientRect().top;
      };
      if (Math.abs(at(m.index) - at(m.index + 2)) > 1)
        wrapped.push(n.textContent.slice(Math.max(0, m.index - 20), m.index + 20));
    }
  }
  const pre = document.createElement('pre');
  pre.id = 'layout-probe';
  pre.textContent = JSON.stringify({overlaps, schedule, untitled, wrapped});
  document.body.appendChild(pre);
})();
