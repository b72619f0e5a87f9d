// `npm run bench` (tsx bench/main.ts): compiles the benchmark with esbuild and runs the result with
// plain node. Under tsx every function expression in src/ would be wrapped by esbuild's keepNames
// helper (`__name`), a per-closure cost our users never pay and the JavaScript baselines do not
// pay either; the compiled copy runs src/ as tsc's output would. Arguments pass through.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { BENCH_BUILD_ENV, BENCH_DIR, BENCH_DIR_ENV, REPO_DIR } from './paths.js';

async function launch(): Promise<number> {
  // Under node_modules so that the bundle's bare imports (esbuild, node-zookeeper-client,
  // testcontainers) resolve from the repository's node_modules.
  const outdir = join(REPO_DIR, 'node_modules', '.cache', 'zkts-bench', String(process.pid));
  try {
    await build({
      entryPoints: {
        run: join(BENCH_DIR, 'run.ts'),
        'heap-probe': join(BENCH_DIR, 'heap-probe.ts'),
        'lock-probe': join(BENCH_DIR, 'lock-probe.ts'),
        'model-server': join(BENCH_DIR, 'model-server.ts'),
      },
      outdir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      keepNames: false,
      logLevel: 'warning',
    });
    // For profiling: ZKTS_BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=prof" (NODE_OPTIONS refuses it).
    const nodeFlags = (process.env.ZKTS_BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
    const args = [...nodeFlags, join(outdir, 'run.mjs'), ...process.argv.slice(2)];
    const child = spawn(process.execPath, args, {
      stdio: 'inherit',
      env: { ...process.env, [BENCH_DIR_ENV]: BENCH_DIR, [BENCH_BUILD_ENV]: outdir },
    });
    // Ctrl-C reaches the child through the terminal; a SIGTERM sent to us alone is passed on.
    process.on('SIGINT', () => {});
    process.on('SIGTERM', () => child.kill('SIGTERM'));
    return await new Promise<number>((resolve) => {
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 130 : 1)));
    });
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

launch().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
