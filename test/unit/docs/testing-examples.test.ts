// The testing guide (docs/testing-your-code.md) shows the files of examples/testing/ as they are,
// but for the package specifiers: the files are what the suite runs (the vitest one, and the Jest
// one with its configuration, in the unit tier, the others in the runtime tests), so a change to
// one without the other fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const GUIDE = readFileSync(join(ROOT, 'docs/testing-your-code.md'), 'utf8');
const DIR = join(ROOT, 'examples/testing');

/** A file as a user writes it: the package's names instead of the repository's paths. */
function asUserWrites(file: string): string {
  return readFileSync(join(DIR, file), 'utf8')
    .replaceAll("'../../src/index.js'", "'zookeeper-ts'")
    .replaceAll("'../../src/testing/index.js'", "'zookeeper-ts/testing'");
}

const blocks = [...GUIDE.matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('the testing guide shows the examples the suite runs', () => {
  const files = readdirSync(DIR).sort();

  it('has the runners it names', () => {
    expect(files).toEqual([
      'bun.test.ts',
      'deno.test.ts',
      'jest-esbuild.js',
      'jest.config.js',
      'jest.test.ts',
      'node-test.test.ts',
      'vitest.test.ts',
      'worker.ts',
    ]);
  });

  for (const file of files) {
    it(`shows examples/testing/${file} as it is`, () => {
      expect(blocks).toContain(asUserWrites(file));
    });
  }
});
