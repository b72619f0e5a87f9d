// The user-facing Markdown pages, for the tests that read them all (links, zkts lines): one list,
// so a new page is checked by every such test at once.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

/** The user-facing Markdown pages, relative to the repository root. */
export function docPages(): string[] {
  return [
    'README.md',
    'CHANGELOG.md',
    'bench/README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
}
