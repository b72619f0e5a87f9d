// `--svg FILE`: throughput and latency percentiles of each row as a self-contained SVG chart.
import type { CaseFigures } from './merge.js';

const xml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const PERCENTILES = [
  { q: 0.5, label: 'p50', color: '#4c78a8' },
  { q: 0.99, label: 'p99', color: '#f58518' },
  { q: 0.999, label: 'p999', color: '#e45756' },
] as const;

/**
 * Two panels side by side: operations per second (linear bars), and latency p50/p99/p999 in ms on
 * a log scale (handoff-free: acquire latency for locks, request latency for raw operations).
 */
export function renderSvg(title: string, figures: readonly CaseFigures[]): string {
  const rowHeight = 34;
  const label = 150;
  const panel = 300;
  const gap = 40;
  // Room right of the latency bars for their values, which are printed, not only hovered.
  const valueRoom = 80;
  const width = label + panel + gap + panel + valueRoom;
  // The title wraps at word boundaries to the chart's width (13 px bold: about 7.5 px a letter).
  const titleLines = wrap(title, Math.floor((width - 20) / TITLE_LETTER_WIDTH));
  const titleHeight = 18 * titleLines.length;
  const top = 38 + titleHeight;
  const height = top + rowHeight * figures.length + 40;
  const maxRate = Math.max(1, ...figures.map((f) => f.throughput));
  const latencies = figures.flatMap((f) => PERCENTILES.map((p) => f.latency.quantile(p.q) / 1000));
  const finite = latencies.filter((v) => Number.isFinite(v) && v > 0);
  const low = Math.log10(Math.max(0.01, Math.min(1, ...finite)));
  const high = Math.log10(Math.max(10, ...finite)) + 0.1;
  const latencyX = (msValue: number) =>
    label + panel + gap + ((Math.log10(Math.max(msValue, 10 ** low)) - low) / (high - low)) * panel;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    ...titleLines.map(
      (line, i) =>
        `<text x="10" y="${20 + 18 * i}" font-size="13" font-weight="bold">${xml(line)}</text>`,
    ),
    `<text x="${label}" y="${top - 12}">operations per second</text>`,
    `<text x="${label + panel + gap}" y="${top - 12}">latency, ms (log scale)</text>`,
  ];
  for (let decade = Math.ceil(low); decade <= Math.floor(high); decade++) {
    const x = latencyX(10 ** decade);
    parts.push(
      `<line x1="${x}" y1="${top - 4}" x2="${x}" y2="${height - 30}" stroke="#ddd"/>`,
      `<text x="${x}" y="${height - 16}" text-anchor="middle" fill="#666">${10 ** decade}</text>`,
    );
  }
  figures.forEach((f, i) => {
    const y = top + i * rowHeight;
    const bar = (f.throughput / maxRate) * panel;
    parts.push(
      `<text x="${label - 8}" y="${y + 16}" text-anchor="end">${xml(f.name)}</text>`,
      `<rect x="${label}" y="${y + 4}" width="${bar.toFixed(1)}" height="18" fill="#54a24b"/>`,
      `<text x="${label + bar + 4}" y="${y + 17}" fill="#333">${Math.round(f.throughput).toLocaleString('en-US')}</text>`,
    );
    PERCENTILES.forEach((p, j) => {
      const value = f.latency.quantile(p.q) / 1000;
      if (!Number.isFinite(value)) return;
      const x = latencyX(value);
      parts.push(
        `<rect x="${label + panel + gap}" y="${y + 3 + j * 9}" width="${(x - label - panel - gap).toFixed(1)}" height="7" fill="${p.color}"><title>${p.label} ${value.toFixed(3)} ms</title></rect>`,
        `<text x="${(x + 3).toFixed(1)}" y="${y + 10 + j * 9}" font-size="8" fill="#333">${p.label} ${formatMs(value)}</text>`,
      );
    });
  });
  PERCENTILES.forEach((p, j) => {
    const x = label + panel + gap + j * 60;
    parts.push(
      `<rect x="${x}" y="${height - 10}" width="10" height="8" fill="${p.color}"/>`,
      `<text x="${x + 14}" y="${height - 2}">${p.label}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

const TITLE_LETTER_WIDTH = 7.5;

/** `text` in lines of at most `columns` letters, broken at spaces (a longer word stays whole). */
export function wrap(text: string, columns: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > columns) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/** A latency in ms with three significant digits: 0.123, 1.23, 12.3, 123. */
function formatMs(value: number): string {
  return value >= 100 ? String(Math.round(value)) : value.toPrecision(3);
}
