// Where things are. The launcher (bench/main.ts) runs a compiled copy of the benchmark from
// node_modules/.cache, so paths cannot come from import.meta.url there: it passes them in the
// environment. Run from source (npx tsx bench/run.ts), they come from this file's location.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR_ENV = 'ZKTS_BENCH_DIR';
export const BENCH_BUILD_ENV = 'ZKTS_BENCH_BUILD';

export const BENCH_DIR = process.env[BENCH_DIR_ENV] ?? dirname(fileURLToPath(import.meta.url));
export const REPO_DIR = join(BENCH_DIR, '..');
/** The compiled benchmark's directory, when running compiled (undefined under tsx). */
export const BUILD_DIR = process.env[BENCH_BUILD_ENV] || undefined;
