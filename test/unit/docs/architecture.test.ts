// docs/architecture.md is a map that stays true: every source path it names exists, and every
// floor of src/ is on it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAP = readFileSync(`${ROOT}docs/architecture.md`, 'utf8');

/** The repository paths the map names in backticks (`src/...`, `test/...`, ...). */
function namedPaths(text: string): string[] {
  const paths = new Set<string>();
  for (const [, inner] of text.matchAll(/`([^`\n]+)`/g)) {
    const path = (inner as string).trim();
    if (/^(src|test|bench|docs|examples)\/[\w./-]*$/.test(path)) paths.add(path);
  }
  return [...paths];
}

describe('docs/architecture.md', () => {
  it('names only paths that exist', () => {
    const named = namedPaths(MAP);
    expect(named.length).toBeGreaterThan(100);
    expect(named.filter((path) => !existsSync(`${ROOT}${path}`))).toEqual([]);
  });

  it('finds a path that does not exist (the check can fail)', () => {
    const named = namedPaths(
      'see `src/locks/sequential.ts` and `src/session/session.ts`, not `npm test`',
    );
    expect(named).toEqual(['src/locks/sequential.ts', 'src/session/session.ts']);
    expect(named.filter((path) => !existsSync(`${ROOT}${path}`))).toEqual([
      'src/locks/sequential.ts',
    ]);
  });

  it('shows every folder of src/ as a floor', () => {
    const folders = readdirSync(`${ROOT}src`, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `src/${entry.name}`);
    expect(folders.filter((folder) => !MAP.includes(`\`${folder}\``))).toEqual([]);
  });
});
