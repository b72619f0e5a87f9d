import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkTarball, mayShip, readmeLinkedFiles } from '../../package/contents.js';
import { oldestAllowed } from '../../package/oldest-node.js';

/** `npm pack --json` output for a tarball holding `paths`. */
function packJson(paths: string[]): string {
  const files = paths.map((path) => ({ path, size: 100 }));
  return JSON.stringify([
    { filename: 'zookeeper-ts-0.1.0.tgz', size: 1000, unpackedSize: 5000, files },
  ]);
}

const ENTRIES = [
  'dist/index.js',
  'dist/index.d.ts',
  'dist/locks/index.js',
  'dist/locks/index.d.ts',
  'dist/session/transports/index.js',
  'dist/session/transports/index.d.ts',
  'dist/otel/index.js',
  'dist/otel/index.d.ts',
  'dist/recipes/index.js',
  'dist/recipes/index.d.ts',
  'dist/testing/index.js',
  'dist/testing/index.d.ts',
  'dist/cli/main.js',
];
const COMPLETE = ['package.json', 'README.md', 'LICENSE', ...ENTRIES, ...readmeLinkedFiles()];

describe('package tarball contents check', () => {
  it('accepts a tarball with every exports, types and bin target and nothing else', () => {
    const result = checkTarball(packJson(COMPLETE), '/tmp');
    expect(result.file).toBe('/tmp/zookeeper-ts-0.1.0.tgz');
    expect(result.summary).toContain(`${COMPLETE.length} files`);
  });

  it('rejects a tarball without a page the README links to', () => {
    expect(readmeLinkedFiles()).toContain('docs/client.md');
    const without = COMPLETE.filter((path) => path !== 'docs/client.md');
    expect(() => checkTarball(packJson(without), '/tmp')).toThrow(
      'README.md links to docs/client.md, the tarball lacks it',
    );
  });

  it('rejects the unbuilt tarball (README.md and package.json only) naming each missing target', () => {
    expect(() => checkTarball(packJson(['package.json', 'README.md']), '/tmp')).toThrow(
      /LICENSE is needed[\s\S]*\.\/dist\/index\.js is needed, the tarball lacks it[\s\S]*\.\/dist\/cli\/main\.js/,
    );
  });

  it('rejects source maps, sources, tests and CLI declarations', () => {
    for (const extra of [
      'dist/index.js.map',
      'src/index.ts',
      'test/x.test.ts',
      'dist/cli/main.d.ts',
      'notes/bench-notebook.md',
    ]) {
      expect(() => checkTarball(packJson([...COMPLETE, extra]), '/tmp')).toThrow(extra);
    }
  });

  it('rejects a module shipped without its declarations', () => {
    expect(() => checkTarball(packJson([...COMPLETE, 'dist/locks/mutex.js']), '/tmp')).toThrow(
      'dist/locks/mutex.js has no dist/locks/mutex.d.ts',
    );
  });
});

describe('what the package.json "files" list ships', () => {
  it('leaves the lab notebooks (notes/) out and keeps the benchmark method in', () => {
    const { files } = JSON.parse(
      readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8'),
    ) as { files: string[] };
    expect(files).toContain('bench/README.md');
    expect(files.some((entry) => entry.startsWith('notes'))).toBe(false);
    expect(mayShip('notes/bench-notebook.md')).toBe(false);
    expect(mayShip('bench/README.md')).toBe(true);
  });
});

describe('oldest Node from engines', () => {
  it('takes the floor of a >= range and refuses other forms', () => {
    expect(oldestAllowed('>=20.4.0')).toBe('20.4.0');
    expect(() => oldestAllowed('^20')).toThrow('not of the form');
  });
});
