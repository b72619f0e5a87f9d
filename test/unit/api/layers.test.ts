// The layers of src import only downwards: protocol -> session (and telemetry) -> client ->
// coordination (the rules every recipe shares) -> locks (and recipes, otel) -> testing -> cli. A
// file importing from a layer above its own (the engine reaching into the facade, the codec into the
// engine) fails here, naming the file and the import.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src');

// The root files: disposable.ts and web-globals.ts are global type shims every layer may use; index.ts is the
// package's entry point, a re-export of the client's surface that only the CLI imports.
const RANK: Readonly<Record<string, number>> = {
  'disposable.ts': 0,
  'web-globals.ts': 0,
  protocol: 0,
  // Shapes and publishes what the session engine and the recipes tell it: below the session, so
  // the session keeps its own bookkeeping (which server, since when) and passes the facts.
  telemetry: 1,
  session: 2,
  client: 3,
  'index.ts': 3,
  // The rules written once (contender order, node naming, paths, retries, deadlines and waits),
  // which the locks and the recipes both build on.
  coordination: 4,
  locks: 5,
  // The recipes beyond locks, and the OpenTelemetry bridge: beside the locks, on the client.
  recipes: 5,
  otel: 5,
  // The in-process ZooKeeper for users' tests (zookeeper-ts/testing): the model server, which
  // speaks the protocol layer's records, and its helpers; `zkts server` runs it.
  testing: 6,
  cli: 7,
};

function layerOf(file: string): string {
  return relative(SRC, file).split(sep)[0] ?? '';
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative module a file names: static and dynamic imports, re-exports, path references. */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\bfrom\s*'(\.[^']*)'/g,
    /\bimport\s*\(\s*'(\.[^']*)'\s*\)/g,
    /^\s*import\s*'(\.[^']*)'/gm,
    /<reference\s+path="(\.[^"]*)"/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!);
  return found;
}

/** What is wrong with `file` importing `specifier` (an upward or unknown layer), or null. */
function judge(file: string, specifier: string): string | null {
  const from = layerOf(file);
  const to = layerOf(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
  const fromRank = RANK[from];
  const toRank = RANK[to];
  if (fromRank !== undefined && toRank !== undefined && toRank <= fromRank) return null;
  return `${relative(SRC, file)} imports ${specifier} (${from} -> ${to})`;
}

function upwardImports(): string[] {
  const wrong: string[] = [];
  for (const file of sourceFiles(SRC)) {
    for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
      const problem = judge(file, specifier);
      if (problem) wrong.push(problem);
    }
  }
  return wrong;
}

/**
 * Imports of src/recipes into src/locks other than its entry point: the recipes use the locks as a
 * user does, and every rule they share with them comes from src/coordination.
 */
function lockInternalsInRecipes(): string[] {
  const wrong: string[] = [];
  const entry = join(SRC, 'locks', 'index.ts');
  for (const file of sourceFiles(join(SRC, 'recipes'))) {
    for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      if (layerOf(target) === 'locks' && target !== entry) {
        wrong.push(`${relative(SRC, file)} imports ${specifier}`);
      }
    }
  }
  return wrong;
}

describe('source layers', () => {
  it('every file imports only from its own layer or the ones below', () => {
    expect(upwardImports()).toEqual([]);
  });

  it('telemetry only publishes: an import of the session from telemetry is refused', () => {
    // The arrow that once ran up a floor (telemetry formatting the session's hosts and keeping
    // its connect bookkeeping); the session publishes to telemetry, never the other way.
    const file = join(SRC, 'telemetry', 'session.ts');
    expect(judge(file, '../session/hosts.js')).toBe(
      'telemetry/session.ts imports ../session/hosts.js (telemetry -> session)',
    );
    expect(judge(file, '../protocol/errors.js')).toBeNull();
    expect(judge(join(SRC, 'session', 'context.ts'), '../telemetry/session.js')).toBeNull();
  });

  it('the recipes never import lock internals (only the locks entry point)', () => {
    expect(lockInternalsInRecipes()).toEqual([]);
    expect(sourceFiles(join(SRC, 'coordination')).length).toBeGreaterThan(5);
  });

  it('the check sees the imports it must judge', () => {
    // Guards the scanner itself: a regex that matched nothing would pass the test above vacuously.
    const names = relativeImports(
      [
        "import type { A } from '../client/types.js';",
        "export { B } from './b.js';",
        "const m = await import('./node.js');",
        '/// <reference path="../disposable.ts" preserve="true" />',
        "import {\n  C,\n  D,\n} from './c.js';",
        "import { E } from 'vitest';",
      ].join('\n'),
    );
    expect(names).toEqual([
      '../client/types.js',
      './b.js',
      './c.js',
      './node.js',
      '../disposable.ts',
    ]);
    expect(sourceFiles(join(SRC, 'session')).length).toBeGreaterThan(10);
  });
});
