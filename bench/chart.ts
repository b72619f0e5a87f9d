// Hand-written SVG: single-path lock throughput against contenders (top) and p99 acquire latency
// against contenders (bottom), one line per implementation.
import type { RunMeta } from './report.js';
import { type Figure, IMPL, type Impl } from './types.js';

const SERIES: { impl: Impl; label: string; color: string; dash?: string }[] = [
  { impl: IMPL.ours, label: 'zookeeper-ts Mutex', color: '#1f77b4' },
  { impl: IMPL.curator, label: 'Curator InterProcessMutex', color: '#d62728' },
  { impl: IMPL.nzk, label: 'node-zookeeper-client recipe', color: '#2ca02c' },
  {
    impl: IMPL.nzkNoRelist,
    label: 'same, no re-list (unsafe)',
    color: '#7f7f7f',
    dash: '6 4',
  },
  { impl: IMPL.floor, label: 'floor (raw socket)', color: '#9467bd', dash: '2 3' },
  { impl: IMPL.floorNamed, label: 'floor, Curator names', color: '#8c564b', dash: '2 3' },
];

const W = 760;
const PANEL_H = 380;
const H = 2 * PANEL_H + 40;
const M = { left: 70, right: 230, top: 60, bottom: 60 };

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A round step (1, 2 or 5 times a power of ten) giving about five ticks up to `max`. */
function niceStep(max: number): number {
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

function contendersOf(figure: Figure): number | undefined {
  const match = /^mutex x(\d+)/.exec(figure.case);
  return match ? Number(match[1]) : undefined;
}

interface Point {
  impl: Impl;
  n: number;
  value: number;
}

interface Panel {
  title: string;
  subtitle: string;
  yLabel: string;
  /** Vertical offset of the panel in the picture. */
  top: number;
  points: Point[];
  format(value: number): string;
}

function drawPanel(panel: Panel): string[] {
  const { points, top } = panel;
  const xs = [...new Set(points.map((p) => p.n))].sort((a, b) => a - b);
  const plotW = W - M.left - M.right;
  const plotH = PANEL_H - M.top - M.bottom;
  // Nothing measured (the mutex scenario not run): an empty panel scaled to 1.
  const maxValue = Math.max(0, ...points.map((p) => p.value));
  const span = maxValue > 0 ? maxValue * 1.1 : 1;
  const step = niceStep(span);
  const yMax = Math.ceil(span / step) * step;
  // Contender counts grow geometrically: spread them evenly.
  const round = (v: number) => Math.round(v * 10) / 10;
  const x = (n: number) =>
    round(M.left + (xs.length <= 1 ? plotW / 2 : (xs.indexOf(n) / (xs.length - 1)) * plotW));
  const y = (v: number) => round(top + M.top + plotH - (v / yMax) * plotH);
  const out: string[] = [
    `<text x="${M.left}" y="${top + 24}" font-size="16" font-weight="bold">${escapeXml(panel.title)}</text>`,
    `<text x="${M.left}" y="${top + 42}" fill="#555">${escapeXml(panel.subtitle)}</text>`,
  ];
  for (let v = 0; v <= yMax + step / 2; v += step) {
    const label = Number.isInteger(step) ? v.toLocaleString('en-US') : v.toFixed(1);
    out.push(
      `<line x1="${M.left}" x2="${M.left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e5e5"/>`,
      `<text x="${M.left - 8}" y="${y(v) + 4}" text-anchor="end" fill="#333">${label}</text>`,
    );
  }
  const bottom = top + M.top + plotH;
  out.push(
    `<line x1="${M.left}" x2="${M.left}" y1="${top + M.top}" y2="${bottom}" stroke="#333"/>`,
    `<line x1="${M.left}" x2="${M.left + plotW}" y1="${bottom}" y2="${bottom}" stroke="#333"/>`,
    `<text x="${M.left + plotW / 2}" y="${top + PANEL_H - 18}" text-anchor="middle">contending sessions</text>`,
    `<text transform="translate(18 ${top + M.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(panel.yLabel)}</text>`,
  );
  for (const n of xs) {
    out.push(`<text x="${x(n)}" y="${bottom + 18}" text-anchor="middle">${n}</text>`);
  }
  SERIES.forEach((series, i) => {
    const own = points.filter((p) => p.impl === series.impl).sort((a, b) => a.n - b.n);
    const dash = series.dash ? ` stroke-dasharray="${series.dash}"` : '';
    if (own.length > 1) {
      const d = own.map((p, j) => `${j === 0 ? 'M' : 'L'}${x(p.n)},${y(p.value)}`).join(' ');
      out.push(`<path d="${d}" fill="none" stroke="${series.color}" stroke-width="2.5"${dash}/>`);
    }
    for (const p of own) {
      out.push(
        `<circle cx="${x(p.n)}" cy="${y(p.value)}" r="4" fill="${series.color}"/>`,
        `<text x="${x(p.n) + 6}" y="${y(p.value) - 6}" fill="${series.color}" font-size="11">${panel.format(p.value)}</text>`,
      );
    }
    const ly = top + M.top + 10 + i * 22;
    const lx = M.left + plotW + 20;
    const label = own.length === 0 ? `${series.label} (not measured)` : series.label;
    out.push(
      `<line x1="${lx}" x2="${lx + 24}" y1="${ly}" y2="${ly}" stroke="${series.color}" stroke-width="3"${dash}/>`,
      `<text x="${lx + 30}" y="${ly + 4}">${escapeXml(label)}</text>`,
    );
  });
  return out;
}

export function lockChartSvg(figures: readonly Figure[], meta: RunMeta): string {
  const mutex = figures.filter((f) => f.scenario === 'mutex' && contendersOf(f) !== undefined);
  const pointsOf = (pick: (f: Figure) => number | undefined): Point[] =>
    mutex
      .map((f) => ({ impl: f.impl, n: contendersOf(f)!, value: pick(f) ?? Number.NaN }))
      .filter((p) => Number.isFinite(p.value));
  const when = `ZooKeeper ${meta.server.version ?? '?'}, ${meta.finishedAt.slice(0, 16)}Z${meta.quick ? ', --quick' : ''}`;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    '<title>Lock throughput and p99 acquire latency on one path vs contenders</title>',
    `<rect width="${W}" height="${H}" fill="white"/>`,
    ...drawPanel({
      title: 'Lock throughput on one path vs contenders',
      subtitle: `acquisitions/s, empty critical section, one session per contender; ${when}`,
      yLabel: 'acquisitions/s',
      top: 0,
      points: pointsOf((f) => f.value),
      format: (v) => Math.round(v).toLocaleString('en-US'),
    }),
    ...drawPanel({
      title: 'p99 acquire latency vs contenders',
      subtitle: 'ms from acquire() to the lease, median over rounds of each round’s p99',
      yLabel: 'p99 acquire latency, ms',
      top: PANEL_H + 20,
      points: pointsOf((f) => f.latency?.p99),
      format: (v) => (v < 10 ? v.toFixed(1) : Math.round(v).toString()),
    }),
  ];
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
