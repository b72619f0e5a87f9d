// docs/job-pool.md shows the worked service's whole code so that a reader can run it from the page
// alone; the repository's copy (examples/job-pool) is what the integration test runs. The two must
// be the same code: each file from its first import on, with the package's names in the imports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const PAGE = readFileSync(join(ROOT, 'docs/job-pool.md'), 'utf8');

/** The package's entry points, as the repository's example imports them. */
const SPECIFIERS: [string, string][] = [
  ["'../../src/index.js'", "'zookeeper-ts'"],
  ["'../../src/locks/index.js'", "'zookeeper-ts/locks'"],
  ["'../../src/recipes/index.js'", "'zookeeper-ts/recipes'"],
];

/** The file as the page shows it. */
function asShown(file: string): string {
  const text = readFileSync(join(ROOT, 'examples/job-pool', file), 'utf8');
  let code = text.slice(text.search(/^import /m));
  for (const [repository, packaged] of SPECIFIERS) code = code.replaceAll(repository, packaged);
  return code;
}

/** The ```ts block of the page's section `heading`. */
function blockUnder(heading: string): string {
  const start = PAGE.indexOf(`\n## ${heading}\n`);
  expect(start, `docs/job-pool.md has a "## ${heading}" section`).toBeGreaterThan(0);
  const match = /```ts\n([\s\S]*?)```/.exec(PAGE.slice(start));
  expect(match, `a ts block under "## ${heading}"`).not.toBeNull();
  return match![1]!;
}

describe('docs/job-pool.md shows the code the test runs', () => {
  it('the store section is examples/job-pool/store.ts', () => {
    expect(blockUnder('The store')).toBe(asShown('store.ts'));
  });

  it('the worker section is examples/job-pool/worker.ts, importing only the package', () => {
    const shown = blockUnder('The worker');
    expect(shown).toBe(asShown('worker.ts'));
    expect(shown).not.toMatch(/from '\.{1,2}\//);
  });
});
