// A chaos suite: one 3-node ensemble, one run per seed on it (each under its own root), the log
// of every run in one JSON-lines file, and the summary of them all.
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEnsemble } from '../harness/index.js';
import { toLine } from './records.js';
import { runSeed, type SeedOptions, type SeedResult } from './scenario.js';
import { type Summary, summarize } from './summary.js';

export interface SuiteOptions
  extends Omit<SeedOptions, 'seed' | 'durationMs' | 'onRecord' | 'log'> {
  seeds: readonly number[];
  /** Fault-injection time per seed, ms. */
  durationMs: number;
  /** Where the log goes (default: a temp file, removed after a clean run). */
  logFile?: string;
  log?: (line: string) => void;
}

export interface SuiteResult {
  summary: Summary;
  results: SeedResult[];
  /** The log file, if it was kept. */
  logFile: string | undefined;
}

export function clean(summary: Summary): boolean {
  return (
    summary.violations === 0 &&
    summary.stalls === 0 &&
    summary.stuckAfterExpiry === 0 &&
    summary.orphans === 0 &&
    summary.lingeringWatches === 0 &&
    summary.hung === 0 &&
    summary.unexpectedErrors === 0
  );
}

export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
  const log = options.log ?? (() => {});
  const tempDir = options.logFile ? undefined : mkdtempSync(join(tmpdir(), 'zkts-chaos-'));
  const logFile = options.logFile ?? join(tempDir!, 'chaos.jsonl');
  const out = createWriteStream(logFile);
  const started = Date.now();
  const ensemble = await startEnsemble({ size: 3 });
  log(`[chaos] ensemble up in ${Date.now() - started} ms: ${ensemble.connectString}`);
  const results: SeedResult[] = [];
  try {
    for (const seed of options.seeds) {
      const result = await runSeed(ensemble, {
        ...options,
        seed,
        onRecord: (record) => out.write(`${toLine({ ...record })}\n`),
        log,
      });
      results.push(result);
    }
  } finally {
    await ensemble.close();
    await new Promise<void>((resolve) => out.end(resolve));
  }
  const summary = summarize(results, options.sessionTimeout);
  const keep = options.logFile !== undefined || !clean(summary);
  if (!keep && tempDir) rmSync(tempDir, { recursive: true, force: true });
  return { summary, results, logFile: keep ? logFile : undefined };
}
