// npm run bench whose set-up fails keeps the last good latest.json and chart (issue 43, item 3),
// and a probe's failure is told in whole lines, the connection limit named.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lastLines } from '../../../bench/child.js';
import { isGoodRun, type RunMeta, writeReport } from '../../../bench/report.js';
import { explainConnectionLimit } from '../../../bench/scenarios/heap.js';

const meta: RunMeta = {
  startedAt: '2026-11-28T17:00:00.000Z',
  finishedAt: '2026-11-28T17:00:01.000Z',
  command: 'npx tsx bench/main.ts',
  node: 'v20',
  platform: 'linux x64',
  cpus: 2,
  loadAverage: { start: 1, end: 1 },
  server: { connectString: '-', origin: 'none', fsync: undefined, version: undefined },
  java: undefined,
  timing: { warmupMs: 0, durationMs: 0, rounds: 1 },
  quick: true,
  seed: 1,
  scenarios: [],
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('bench results', () => {
  it('a run whose set-up failed leaves latest.json and chart.svg as they were', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zkts-bench-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'latest.json'), '{"good":true}\n');
    writeFileSync(join(dir, 'chart.svg'), '<svg>good</svg>');
    const report = writeReport(
      meta,
      {
        figures: [],
        skipped: [],
        failures: [{ scenario: 'setup', case: '-', impl: 'zookeeper-ts', error: 'no server' }],
      },
      dir,
    );
    expect(readFileSync(join(dir, 'latest.json'), 'utf8')).toBe('{"good":true}\n');
    expect(readFileSync(join(dir, 'chart.svg'), 'utf8')).toBe('<svg>good</svg>');
    expect(report.files).toHaveLength(1);
    expect(existsSync(report.files[0]!)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.startsWith('run-'))).toHaveLength(1);
    expect(report.text).toContain('still hold the last good run');
  });

  it('only a run that measured something, with its set-up working, is a good run', () => {
    const figure = { scenario: 'lock', case: 'x', impl: 'zookeeper-ts' } as never;
    expect(isGoodRun({ figures: [figure], failures: [] })).toBe(true);
    expect(isGoodRun({ figures: [], failures: [] })).toBe(false);
    expect(
      isGoodRun({
        figures: [figure],
        failures: [{ scenario: 'setup', case: '-', impl: 'zookeeper-ts', error: 'x' }],
      }),
    ).toBe(false);
  });

  it("a probe's stderr is cut at line ends, never mid-word", () => {
    const stderr = `${'first line of the failure\n'.repeat(40)}ConnectionLossError: closed\n    at unk-BVSQCDR5.mjs:266:10\n`;
    const tail = lastLines(stderr, 100);
    expect(tail.endsWith('at unk-BVSQCDR5.mjs:266:10')).toBe(true);
    for (const line of tail.split('\n')) expect(stderr.split('\n')).toContain(line);
    expect(tail.length).toBeLessThanOrEqual(100);
  });

  it('a heap probe that lost connections past 60 sessions names maxClientCnxns', () => {
    const lost = new Error('heap-probe exited with 1: ConnectionLossError: CONNECTIONLOSS closed');
    const explained = explainConnectionLimit(lost, 1000) as Error;
    expect(explained.message).toMatch(/maxClientCnxns in zoo\.cfg, 60 by default/);
    expect(explained.cause).toBe(lost);
    expect(explainConnectionLimit(lost, 50)).toBe(lost);
    const other = new Error('heap-probe exited with 1: TypeError: x is not a function');
    expect(explainConnectionLimit(other, 1000)).toBe(other);
  });
});
