// Bundle size: src/index.ts, and src/index.ts + src/locks/index.ts in one bundle, minified by
// esbuild (platform neutral, node:* external) and gzipped with zlib at level 9.
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { REPO_DIR } from '../paths.js';
import { runCase } from '../run-case.js';
import { IMPL, type Scenario } from '../types.js';

const SRC = join(REPO_DIR, 'src');

export const SIZE_CASES = {
  client: 'client (src/index.ts)',
  clientAndLocks: 'client + locks',
} as const;

async function bundledSize(entry: string): Promise<{ minified: number; gzipped: number }> {
  const result = await build({
    stdin: { contents: entry, resolveDir: SRC, loader: 'ts', sourcefile: 'bench-entry.ts' },
    bundle: true,
    minify: true,
    platform: 'neutral',
    format: 'esm',
    target: 'es2022',
    external: ['node:*'],
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length };
}

export const size: Scenario = {
  name: 'size',
  description: 'minified + gzipped bundle size of the client and of client + locks',
  quick: true,
  async run(ctx) {
    const entries = [
      [SIZE_CASES.client, "export * from './index.ts';"],
      [SIZE_CASES.clientAndLocks, "export * from './index.ts';\nexport * from './locks/index.ts';"],
    ] as const;
    for (const [name, entry] of entries) {
      await runCase(ctx, { scenario: 'size', case: name, impl: IMPL.ours }, async () => {
        const { minified, gzipped } = await bundledSize(entry);
        return { unit: 'bytes', value: gzipped, extra: { minifiedBytes: minified } };
      });
    }
  },
};
