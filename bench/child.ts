// Runs one of the benchmark's probe programs (heap-probe, lock-probe) in a fresh Node process and
// parses the JSON line it prints last. Compiled runs use the launcher's bundle; source runs go
// through tsx. ZKTS_BENCH_PROBE_FLAGS passes node flags to the probes only (e.g. --cpu-prof).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BENCH_DIR, BUILD_DIR, REPO_DIR } from './paths.js';

export type ProbeName = 'heap-probe' | 'lock-probe';

function probeCommand(name: ProbeName): string[] {
  if (BUILD_DIR !== undefined) return [join(BUILD_DIR, `${name}.mjs`)];
  return ['--import', 'tsx', join(BENCH_DIR, `${name}.ts`)];
}

/** Runs `name` with `args` (after `nodeFlags`) and resolves with its last stdout line, parsed. */
export function runProbe<T>(
  name: ProbeName,
  args: string[],
  timeoutMs: number,
  nodeFlags: string[] = [],
): Promise<T> {
  const extra = (process.env.ZKTS_BENCH_PROBE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...nodeFlags, ...extra, ...probeCommand(name), ...args],
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
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`${name} exited with ${signal ?? code}: ${lastLines(stderr, 600)}`));
        return;
      }
      try {
        const line = stdout.trim().split('\n').pop() ?? '';
        resolve(JSON.parse(line, (_key, value) => (value === null ? Number.NaN : value)) as T);
      } catch (err) {
        reject(new Error(`${name} printed no result: ${String(err)} ${stdout.slice(-300)}`));
      }
    });
  });
}

/** The end of `text`, whole lines only, about `max` characters (a message never cut mid-word). */
export function lastLines(text: string, max: number): string {
  const lines = text.trim().split('\n');
  const kept: string[] = [];
  let length = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (kept.length > 0 && length + line.length + 1 > max) break;
    kept.unshift(line);
    length += line.length + 1;
  }
  return kept.join('\n');
}
