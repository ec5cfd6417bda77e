// Line charts in plain SVG for the Tablecast console: no library, nothing fetched from elsewhere.
//
//   drawLineChart(svg, series, { windowMs, now, format })
//
// series: [{ name, color, dashed?, points: [{ t: epochMs, v: number | null }] }]; a null value breaks the
// line (no data for that interval). The x axis is the last windowMs up to now; the y axis starts
// at 0 and ends at a round number above the largest value shown.

const NS = 'http://www.w3.org/2000/svg';
const WIDTH = 560;
const HEIGHT = 190;
const PAD = { left: 52, right: 12, top: 12, bottom: 40 };

function el(name, attrs, text) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The smallest of 1, 2, 2.5, 5 times a power of ten that is at least v (at least 1). */
export function niceCeiling(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) {
    if (m * p >= v) return m * p;
  }
  return 10 * p;
}

export function drawLineChart(svg, series, { windowMs = 120_000, now = Date.now(), format = String } = {}) {
  svg.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
  svg.replaceChildren();
  const x0 = PAD.left;
  const x1 = WIDTH - PAD.right;
  const y0 = HEIGHT - PAD.bottom;
  const y1 = PAD.top;
  const from = now - windowMs;
  let max = 0;
  for (const s of series) {
    for (const p of s.points) {
      if (p.t >= from && p.v !== null && p.v > max) max = p.v;
    }
  }
  const top = niceCeiling(max);
  const xOf = (t) => x0 + ((t - from) / windowMs) * (x1 - x0);
  const yOf = (v) => y0 - (v / top) * (y0 - y1);

  for (const f of [0, 0.5, 1]) {
    const y = yOf(top * f);
    svg.append(el('line', { x1: x0, x2: x1, y1: y, y2: y, class: 'grid' }));
    svg.append(el('text', { x: x0 - 6, y: y + 4, class: 'tick', 'text-anchor': 'end' }, format(top * f)));
  }
  svg.append(el('text', { x: x0, y: y0 + 14, class: 'tick' }, `-${Math.round(windowMs / 1000)} s`));
  svg.append(el('text', { x: x1, y: y0 + 14, class: 'tick', 'text-anchor': 'end' }, 'now'));

  let legendX = x0;
  for (const s of series) {
    let d = '';
    let pen = false;
    let last = null;
    for (const p of s.points) {
      if (p.t < from || p.v === null) {
        pen = false;
        continue;
      }
      d += `${pen ? 'L' : 'M'}${xOf(p.t).toFixed(1)},${yOf(p.v).toFixed(1)}`;
      pen = true;
      last = p.v;
    }
    const path = el('path', { d, class: 'line', stroke: s.color, ...(s.dashed ? { 'stroke-dasharray': '5 3' } : {}) });
    path.dataset.series = s.name;
    path.dataset.points = String(s.points.filter((p) => p.t >= from && p.v !== null).length);
    svg.append(path);
    const label = `${s.name}: ${last === null ? '–' : format(last)}`;
    svg.append(el('rect', { x: legendX, y: HEIGHT - 14, width: 10, height: 10, fill: s.color }));
    svg.append(el('text', { x: legendX + 14, y: HEIGHT - 5, class: 'legend' }, label));
    legendX += 24 + label.length * 6.5;
  }
}
