// The examples of the shipped pages run: every ```ts or ```js block of README.md and docs/*.md
// that starts with `import` and takes its server from `process.env.ZOOKEEPER_CONNECT` (the
// convention for an example meant to run; blocks without it are fragments of a larger program)
// or starts its own with `startServer()`. Each runs as a module, as a user would run it, against
// the real server in a fresh chroot, with only the package specifiers pointed at the sources.
// They also type-check together as a strict TypeScript user compiles them: an option misspelt
// in an example runs (the recipe takes its default) but does not compile.
//
// And every public class is shown by such an example, or is named in STILL_WITHOUT_EXAMPLE: that
// list only shrinks (a class that gains an example must leave it, a new class must come with one).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { freshChroot } from './cli/helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The package's entry points, as the examples import them. */
const ENTRIES: Record<string, string> = {
  'zookeeper-ts': 'src/index.ts',
  'zookeeper-ts/locks': 'src/locks/index.ts',
  'zookeeper-ts/recipes': 'src/recipes/index.ts',
  'zookeeper-ts/testing': 'src/testing/index.ts',
  'zookeeper-ts/transports': 'src/session/transports/index.ts',
  'zookeeper-ts/otel': 'src/otel/index.ts',
};

interface Example {
  page: string;
  /** 1-based line of the block's opening fence. */
  line: number;
  code: string;
}

function examplesOf(page: string): Example[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const found: Example[] = [];
  for (const match of text.matchAll(/```(?:ts|js|typescript|javascript)\n([\s\S]*?)```/g)) {
    const code = match[1]!;
    if (!code.trimStart().startsWith('import')) continue;
    if (!/process\.env\.ZOOKEEPER_CONNECT|startServer\(/.test(code)) continue;
    const line = text.slice(0, match.index).split('\n').length;
    found.push({ page, line, code });
  }
  return found;
}

const EXAMPLES = PAGES.flatMap(examplesOf);

/**
 * Public classes no runnable example shows yet. The recipes are changing shape (docs/contract.md:
 * constructor options, start()/close() promises, on(event, listener)); their examples come with
 * the new shapes.
 */
const STILL_WITHOUT_EXAMPLE: string[] = [];

/** Classes an example shows through another name: a `Client` comes from `connect()`. */
const SHOWN_AS: Record<string, RegExp> = {
  Client: /\bconnect\(/,
  ReadWriteSide: /\bReadWriteLock\b/,
};

/** Exported classes of the entry points that are not errors (those are shown by their codes). */
async function publicClasses(): Promise<string[]> {
  const names = new Set<string>();
  for (const entry of ['src/index.ts', 'src/locks/index.ts', 'src/recipes/index.ts']) {
    const module = (await import(pathToFileURL(join(ROOT, entry)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (typeof value !== 'function' || !/^class\b/.test(Function.prototype.toString.call(value)))
        continue;
      if ((value as { prototype: unknown }).prototype instanceof Error) continue;
      names.add(name);
    }
  }
  return [...names].sort();
}

const dir = mkdtempSync(join(tmpdir(), 'zkts-docs-examples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runModule(
  file: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the examples in the docs run', () => {
  it('finds the examples', () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(3);
  });

  for (const example of EXAMPLES) {
    it(`${example.page}:${example.line}`, async () => {
      const { servers } = await freshChroot();
      let code = example.code;
      for (const [specifier, source] of Object.entries(ENTRIES))
        code = code.replaceAll(`'${specifier}'`, `'${pathToFileURL(join(ROOT, source)).href}'`);
      const file = join(dir, `${example.page.replace(/\W/g, '-')}-${example.line}.mts`);
      writeFileSync(file, code);
      const result = await runModule(file, { ZOOKEEPER_CONNECT: servers });
      expect(result.stderr, result.stdout).toBe('');
      expect(result.code).toBe(0);
    }, 60_000);
  }

  it('the examples type-check as a user compiles them (strict, the package names resolved to the sources)', async () => {
    // Under node_modules (ignored by git, tsc and biome), so that @types/node is found; a folder
    // of its own per run, since checkouts may share one node_modules.
    mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
    const project = mkdtempSync(join(ROOT, 'node_modules/.cache/zkts-docs-examples-'));
    onTestFinished(() => rmSync(project, { recursive: true, force: true }));
    const files = EXAMPLES.map((example) => {
      const file = join(project, `${example.page.replace(/\W/g, '-')}-${example.line}.mts`);
      writeFileSync(file, example.code);
      return file;
    });
    const paths = Object.fromEntries(
      Object.entries(ENTRIES).map(([specifier, source]) => [specifier, [join(ROOT, source)]]),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        extends: join(ROOT, 'tsconfig.json'),
        compilerOptions: { paths, noEmit: true },
        // The sources' own ambient declarations (the Workers socket module) come along.
        files: [...files, join(ROOT, 'src/session/transports/cloudflare-sockets.d.ts')],
        include: [],
      }),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const result = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [tsc, '-p', join(project, 'tsconfig.json')], {
        cwd: project,
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, output }));
    });
    // Errors name the file (page-line.mts) and the line within the example's block.
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 180_000);

  it('every public class is shown by a runnable example, or listed as still without one', async () => {
    const shown = (name: string) =>
      EXAMPLES.some((example) =>
        (SHOWN_AS[name] ?? new RegExp(`\\b${name}\\b`)).test(example.code),
      );
    const classes = await publicClasses();
    const missing = classes.filter((name) => !shown(name));
    expect(missing).toEqual(STILL_WITHOUT_EXAMPLE);
  });
});
