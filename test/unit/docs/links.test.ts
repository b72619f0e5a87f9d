// The README and the docs/ pages link to each other and into the tree by relative paths: each such
// link must name a file that exists (and a heading that exists, for `page.md#anchor`), so that a
// moved or renamed page shows up here rather than as a dead link on the code host. The pages
// also ship in the npm package, so their links may only name files the package holds: a link
// into src/, test/ or examples/ is dead in node_modules and on the npm page.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mayShip } from '../../package/contents.js';
import { docPages } from '../../support/doc-pages.js';

const ROOT = join(import.meta.dirname, '../../..');
const PAGES = docPages();
/** Pages linked from the README that other branches of this release are writing. */
const PENDING: string[] = [];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsIn(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

describe('relative links in the README and docs', () => {
  for (const page of PAGES) {
    it(`${page}: every relative link names a file (and heading) that exists and ships with the package`, () => {
      const text = readFileSync(join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
      const broken: string[] = [];
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), path);
        const fromRoot = relative(ROOT, file);
        if (PENDING.includes(fromRoot)) continue;
        if (!mayShip(fromRoot)) broken.push(`${target} (${fromRoot} is not in the npm package)`);
        if (!existsSync(file)) broken.push(`${target} (no file ${fromRoot})`);
        else if (anchor && file.endsWith('.md') && !anchorsIn(file).has(anchor))
          broken.push(`${target} (no heading #${anchor} in ${fromRoot})`);
      }
      expect(broken).toEqual([]);
    });
  }

  it('the README links every page of docs/ and the benchmark methodology', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const docs = PAGES.filter((page) => page.startsWith('docs/'));
    for (const page of [...docs, ...PENDING, 'bench/README.md', 'CHANGELOG.md'])
      expect(readme, page).toContain(`](${page}`);
  });
});
