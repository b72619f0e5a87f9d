// Heap per idle session: N sessions open in one fresh Node process (see bench/heap-probe.ts).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BENCH_DIR, BUILD_DIR, REPO_DIR } from '../paths.js';
import { runCase } from '../run-case.js';
import { IMPL, type Scenario } from '../types.js';

/** The compiled probe when running compiled, else the source through tsx. */
function probeCommand(): string[] {
  if (BUILD_DIR !== undefined) return [join(BUILD_DIR, 'heap-probe.mjs')];
  return ['--import', 'tsx', join(BENCH_DIR, 'heap-probe.ts')];
}

interface ProbeResult {
  count: number;
  heapUsedPerSession: number;
  externalPerSession: number;
  rssPerSession: number;
}

function probe(impl: 'ours' | 'nzk', server: string, count: number): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', ...probeCommand(), impl, server, String(count)],
      { cwd: REPO_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`heap probe exited with ${signal ?? code}: ${stderr.trim().slice(-600)}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as ProbeResult);
      } catch (err) {
        reject(new Error(`heap probe printed no result: ${String(err)} ${stdout}`));
      }
    });
  });
}

export const heap: Scenario = {
  name: 'heap',
  description: 'heap per idle session, 1,000 sessions in one process (--quick: 200)',
  quick: true,
  async run(ctx) {
    const count = ctx.quick ? 200 : 1000;
    const name = `idle sessions x${count}`;
    for (const [impl, which] of [
      [IMPL.ours, 'ours'],
      [IMPL.nzk, 'nzk'],
    ] as const) {
      await runCase(ctx, { scenario: 'heap', case: name, impl }, async () => {
        const result = await probe(which, ctx.server, count);
        return {
          unit: 'bytes/session',
          value: result.heapUsedPerSession,
          extra: {
            externalBytesPerSession: result.externalPerSession,
            rssBytesPerSession: result.rssPerSession,
          },
          note: 'heapUsed delta after GC',
        };
      });
    }
  },
};
