// `zkts bench --processes N` spawns the worker module next to the CLI: build it next to the
// bundled CLI the tests run, as the published package has it next to dist/cli/main.js.
import { renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { cliEntry } from './helpers.js';

const ROOT = join(import.meta.dirname, '../../..');
let built: Promise<void> | undefined;

/** Builds the bench worker once per test worker (written whole, then renamed into place). */
export function buildBenchWorker(): Promise<void> {
  built ??= (async () => {
    const dir = dirname(await cliEntry());
    const result = await build({
      entryPoints: [join(ROOT, 'src/cli/bench/worker.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      logLevel: 'warning',
    });
    const target = join(dir, 'worker.js');
    const partial = `${target}.${process.pid}`;
    writeFileSync(partial, result.outputFiles[0]!.contents);
    renameSync(partial, target);
  })();
  return built;
}
