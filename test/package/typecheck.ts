// Strict TypeScript consumers of the installed package: skipLibCheck false (so every shipped
// .d.ts is checked), the default libs of target ES2022, in each module mode a consumer may use.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, runIn } from '../runtimes/processes.js';

const STRICT = {
  target: 'es2022',
  strict: true,
  skipLibCheck: false,
  noEmit: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
};

const CONSUMERS: { name: string; options: Record<string, unknown>; files: string[] }[] = [
  // A Node project: @types/node present, which also declares `Disposable` for `await using`.
  {
    name: 'nodenext',
    options: { module: 'nodenext', types: ['node'] },
    files: ['consumer.ts', 'await-using.ts'],
  },
  // A bundled (browser-ish or Worker) project without @types/node: nothing of ours may need it.
  {
    name: 'bundler',
    options: { module: 'esnext', moduleResolution: 'bundler', types: [] },
    files: ['consumer.ts'],
  },
  { name: 'preserve', options: { module: 'preserve', types: [] }, files: ['consumer.ts'] },
  // No runtime globals at all: lib es2022 without DOM, no @types/node. The declarations bring the
  // few web globals they name (src/web-globals.ts).
  {
    name: 'lib-es2022-only',
    options: { module: 'esnext', moduleResolution: 'bundler', lib: ['es2022'], types: [] },
    files: ['lib-only.ts'],
  },
  // TypeScript 6+ adds no `types` by itself: a Node project lists them, here without DOM.
  {
    name: 'lib-es2022-node',
    options: { module: 'nodenext', lib: ['es2022'], types: ['node'] },
    files: ['consumer.ts', 'await-using.ts'],
  },
  // lib esnext and @types/node also declare Symbol.asyncDispose and AsyncDisposable: ours must
  // merge with both (as in a Deno or Bun project, whose libs declare them too).
  {
    name: 'esnext-lib',
    options: { module: 'nodenext', lib: ['esnext'], types: ['node'] },
    files: ['consumer.ts', 'await-using.ts'],
  },
];

/** Type-checks each consumer; throws with tsc's output for the first that fails. */
export async function typeCheck(project: string): Promise<string> {
  const tsc = join(REPO, 'node_modules/typescript/bin/tsc');
  const version = (
    await runIn(project, process.execPath, [tsc, '--version'], 30_000)
  ).stdout.trim();
  // One tsc per consumer, all at once: each is a separate program with its own options.
  const outcomes = await Promise.all(
    CONSUMERS.map(async (consumer) => {
      const config = join(project, `tsconfig.${consumer.name}.json`);
      const tsconfig = {
        compilerOptions: { ...STRICT, ...consumer.options },
        files: consumer.files,
      };
      writeFileSync(config, `${JSON.stringify(tsconfig, null, 2)}\n`);
      return {
        consumer,
        outcome: await runIn(project, process.execPath, [tsc, '-p', config], 180_000),
      };
    }),
  );
  const failures = outcomes.filter(({ outcome }) => outcome.code !== 0);
  if (failures.length > 0) {
    throw new Error(
      failures
        .map(({ consumer, outcome }) => `${consumer.name} consumer: ${outcome.describe()}`)
        .join('\n'),
    );
  }
  const passed = CONSUMERS.map((consumer) => consumer.name);
  return `${version}: ${passed.join(', ')} consumers compile (skipLibCheck false, target es2022)`;
}
