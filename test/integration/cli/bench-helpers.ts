// `zkts bench --processes N` spawns the worker module next to the CLI: build it next to the
// bundled CLI the tests run, as the published package has it next to dist/cli/main.js.
import { dirname, join } from 'node:path';
import { bundleInto, cliEntry } from './helpers.js';

const ROOT = join(import.meta.dirname, '../../..');
let built: Promise<void> | undefined;

/** Builds the bench worker once per test worker. */
export function buildBenchWorker(): Promise<void> {
  built ??= cliEntry().then((entry) =>
    bundleInto(join(ROOT, 'src/cli/bench/worker.ts'), join(dirname(entry), 'worker.js')),
  );
  return built;
}
