// `npm run bench` on a machine with no Java and no Docker, as a new user's: Java hidden from PATH
// (every other tool still there), no JAVA_HOME, ZOOKEEPER_HOME or ZOOKEEPER_CONNECT. The
// benchmark finds no ZooKeeper to start, measures against the in-process model server of
// zookeeper-ts/testing in a process of its own, and says so at the start and atop the report.
// One tiny case (getData, sequential and pipelined, one short round) keeps it to seconds.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { childOutput } from '../support/integration.js';
import { envWithoutJava } from '../support/no-java.js';

const ROOT = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'zkts-bench-nojava-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs `command` in the repository root with `env`, killed after 110 s. */
const run = (command: string, args: string[], env: NodeJS.ProcessEnv) =>
  childOutput(spawn(command, args, { cwd: ROOT, env }), 110_000);

it('with no Java and no Docker, npm run bench measures against the in-process model and says so', async () => {
  const env = envWithoutJava(work);
  const out = join(work, 'results');
  const args = ['run', 'bench', '--', '--scenario', 'raw', '--quick'];
  args.push('--rounds', '1', '--duration', '200', '--warmup', '100', '--out', out);
  const result = await run('npm', args, env);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toContain('Java baselines skipped: java/javac not found');
  expect(result.stderr).toMatch(
    /in-process model server at 127\.0\.0\.1:\d+ \(no ZooKeeper found\)/,
  );
  // The banner comes before any figure, and again at the top of the report.
  const banner = '*** NOT ZOOKEEPER: these figures are against the in-process model server';
  const report = result.stdout.indexOf('zookeeper-ts benchmark —');
  expect(result.stdout.indexOf(banner)).toBeGreaterThanOrEqual(0);
  expect(result.stdout.indexOf(banner)).toBeLessThan(report);
  expect(result.stdout.indexOf(banner, report)).toBeGreaterThan(report);
  expect(result.stdout).toMatch(/\| raw \| getData sequential \| zookeeper-ts \| [\d,]+ \| ops\/s/);
  expect(result.stdout).toMatch(
    /\| raw \| getData sequential \| node-zookeeper-client \| [\d,]+ \|/,
  );
  const saved = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as {
    meta: { server: { model?: string; origin: string } };
    figures: unknown[];
    failures: unknown[];
  };
  expect(saved.meta.server.model).toBe('no ZooKeeper found');
  expect(saved.meta.server.origin).toContain('NOT ZooKeeper');
  expect(saved.figures.length).toBe(4);
  expect(saved.failures).toEqual([]);
}, 120_000);
