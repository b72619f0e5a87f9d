// Hand-written SVG: single-path lock throughput against contenders, one line per implementation.
import type { RunMeta } from './report.js';
import { type Figure, IMPL, type Impl } from './types.js';

const SERIES: { impl: Impl; label: string; color: string }[] = [
  { impl: IMPL.ours, label: 'zookeeper-ts Mutex', color: '#1f77b4' },
  { impl: IMPL.curator, label: 'Curator InterProcessMutex', color: '#d62728' },
  { impl: IMPL.nzk, label: 'node-zookeeper-client recipe', color: '#2ca02c' },
];

const W = 760;
const H = 440;
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

export function lockChartSvg(figures: readonly Figure[], meta: RunMeta): string {
  const points = figures
    .filter((f) => f.scenario === 'mutex' && Number.isFinite(f.value))
    .map((f) => ({ impl: f.impl, n: contendersOf(f), value: f.value }))
    .filter((p): p is { impl: Impl; n: number; value: number } => p.n !== undefined);
  const xs = [...new Set(points.map((p) => p.n))].sort((a, b) => a - b);
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const maxValue = Math.max(1, ...points.map((p) => p.value));
  const step = niceStep(maxValue * 1.1);
  const yMax = Math.ceil((maxValue * 1.1) / step) * step;
  // Contender counts grow geometrically: spread them evenly.
  const round = (v: number) => Math.round(v * 10) / 10;
  const x = (n: number) =>
    round(M.left + (xs.length <= 1 ? plotW / 2 : (xs.indexOf(n) / (xs.length - 1)) * plotW));
  const y = (v: number) => round(M.top + plotH - (v / yMax) * plotH);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    '<title>Lock throughput on one path vs contenders</title>',
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${M.left}" y="24" font-size="16" font-weight="bold">Lock throughput on one path vs contenders</text>`,
    `<text x="${M.left}" y="42" fill="#555">${escapeXml(
      `acquisitions/s, empty critical section, one session per contender; ZooKeeper ${meta.server.version ?? '?'}, ${meta.finishedAt.slice(0, 16)}Z${meta.quick ? ', --quick' : ''}`,
    )}</text>`,
  ];
  for (let v = 0; v <= yMax + step / 2; v += step) {
    out.push(
      `<line x1="${M.left}" x2="${M.left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e5e5"/>`,
      `<text x="${M.left - 8}" y="${y(v) + 4}" text-anchor="end" fill="#333">${v.toLocaleString('en-US')}</text>`,
    );
  }
  out.push(
    `<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${M.top + plotH}" stroke="#333"/>`,
    `<line x1="${M.left}" x2="${M.left + plotW}" y1="${M.top + plotH}" y2="${M.top + plotH}" stroke="#333"/>`,
    `<text x="${M.left + plotW / 2}" y="${H - 18}" text-anchor="middle">contending sessions</text>`,
    `<text transform="translate(18 ${M.top + plotH / 2}) rotate(-90)" text-anchor="middle">acquisitions/s</text>`,
  );
  for (const n of xs) {
    out.push(`<text x="${x(n)}" y="${M.top + plotH + 18}" text-anchor="middle">${n}</text>`);
  }
  SERIES.forEach((series, i) => {
    const own = points.filter((p) => p.impl === series.impl).sort((a, b) => a.n - b.n);
    if (own.length > 1) {
      const d = own.map((p, j) => `${j === 0 ? 'M' : 'L'}${x(p.n)},${y(p.value)}`).join(' ');
      out.push(`<path d="${d}" fill="none" stroke="${series.color}" stroke-width="2.5"/>`);
    }
    for (const p of own) {
      out.push(
        `<circle cx="${x(p.n)}" cy="${y(p.value)}" r="4" fill="${series.color}"/>`,
        `<text x="${x(p.n) + 6}" y="${y(p.value) - 6}" fill="${series.color}" font-size="11">${Math.round(p.value).toLocaleString('en-US')}</text>`,
      );
    }
    const ly = M.top + 10 + i * 22;
    const lx = M.left + plotW + 20;
    const label = own.length === 0 ? `${series.label} (not measured)` : series.label;
    out.push(
      `<line x1="${lx}" x2="${lx + 24}" y1="${ly}" y2="${ly}" stroke="${series.color}" stroke-width="3"/>`,
      `<text x="${lx + 30}" y="${ly + 4}">${escapeXml(label)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
