// The package as a user gets it: `npm pack` (which builds through prepack), the tarball installed
// into a fresh temporary project, and there: the entry points imported on Node (also through
// require()), Bun, Deno (npm: specifiers) and the oldest Node that `engines` allows, a Worker
// bundled with esbuild as wrangler does and run in workerd, every one doing a round trip against
// a real ZooKeeper; the declarations type-checked by strict consumers; `npx zkts --help`; with
// Java hidden, `npx zkts server` and the README's Quick start against it; publint and
// arethetypeswrong on the tarball.
//   npx tsx test/package/run.ts [--keep]   (--keep leaves the temporary project for a look)
// Exit code 0 only if every step passed. Prints one line per step with its time.
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startStandalone, type ZkServer } from '../harness/index.js';
import { externalConnectString } from '../harness/source.js';
import { type Outcome, REPO, runIn } from '../runtimes/processes.js';
import { checkTarball, type PackResult } from './contents.js';
import { quickStartWithoutJava } from './no-java.js';
import { installOldestNode } from './oldest-node.js';
import { typeCheck } from './typecheck.js';
import { bundleWorker, runWorker } from './worker.js';

const { values } = parseArgs({ options: { keep: { type: 'boolean', default: false } } });

interface Step {
  name: string;
  ms: number;
  ok: boolean;
  detail: string;
}
const steps: Step[] = [];

/** Runs one step; a failure is recorded (with its detail) and the run goes on to the next. */
async function step(name: string, body: () => Promise<string>): Promise<boolean> {
  const started = performance.now();
  let ok = true;
  let detail: string;
  try {
    detail = await body();
  } catch (error) {
    ok = false;
    detail = error instanceof Error ? error.message : String(error);
  }
  const ms = Math.round(performance.now() - started);
  steps.push({ name, ms, ok, detail });
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${name} (${(ms / 1000).toFixed(1)} s)${detail ? `\n${indent(detail)}` : ''}`,
  );
  return ok;
}

const indent = (text: string) => text.trim().replace(/^/gm, '     ');

/** Succeeds when the command exited 0 and its stdout's last line is `ok`. */
function expectOk(outcome: Outcome): string {
  const lines = outcome.stdout.trim().split('\n');
  if (outcome.code !== 0 || lines.at(-1) !== 'ok') throw new Error(outcome.describe());
  return lines.slice(0, -1).join('\n');
}

const tools = join(REPO, 'node_modules', '.bin');
const work = mkdtempSync(join(tmpdir(), 'zkts-package-'));
const project = join(work, 'consumer');
let server: ZkServer | null = null;
let pack: PackResult | null = null;
try {
  const packed = await step('npm pack (prepack builds dist/)', async () => {
    const outcome = await runIn(
      REPO,
      'npm',
      ['pack', '--json', '--pack-destination', work],
      300_000,
    );
    if (outcome.code !== 0) throw new Error(outcome.describe());
    pack = checkTarball(outcome.stdout, work);
    return pack.summary;
  });
  if (!packed || !pack) throw new Error('no tarball: nothing else can run');
  const tarball = (pack as PackResult).file;

  await step('install the tarball into a fresh project', async () => {
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2)}\n`,
    );
    const outcome = await runIn(
      project,
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball],
      120_000,
    );
    if (outcome.code !== 0) throw new Error(outcome.describe());
    cpSync(join(REPO, 'test/package/fixtures'), project, { recursive: true });
    const exercise = readFileSync(join(project, 'exercise.mjs'), 'utf8');
    writeFileSync(
      join(project, 'exercise-npm.mjs'),
      exercise.replaceAll("from 'zookeeper-ts", "from 'npm:zookeeper-ts"),
    );
    // The consumer's own dev dependency, as a Node user would have it.
    mkdirSync(join(project, 'node_modules/@types'), { recursive: true });
    symlinkSync(
      join(REPO, 'node_modules/@types/node'),
      join(project, 'node_modules/@types/node'),
      'dir',
    );
    return '';
  });

  await step('npx zkts --help', async () => {
    const outcome = await runIn(project, 'npx', ['--no-install', 'zkts', '--help'], 60_000);
    if (outcome.code !== 0 || !/zkts/.test(outcome.stdout)) throw new Error(outcome.describe());
    return outcome.stdout.trim().split('\n')[0] ?? '';
  });

  await step('no Java: npx zkts server, then the README Quick start against it', () =>
    quickStartWithoutJava(project, work),
  );

  await step(
    'types: strict consumers (nodenext, bundler, preserve, lib es2022 alone and with node types, lib esnext)',
    () => typeCheck(project),
  );

  await step('publint', async () => {
    const outcome = await runIn(
      project,
      join(tools, 'publint'),
      ['run', '--strict', tarball],
      120_000,
    );
    if (outcome.code !== 0 || !/All good/i.test(outcome.stdout))
      throw new Error(outcome.describe());
    return outcome.stdout.trim();
  });

  await step('arethetypeswrong (profile esm-only)', async () => {
    const args = [
      tarball,
      '--profile',
      'esm-only',
      '--format',
      'table-flipped',
      '--no-color',
      '--no-emoji',
    ];
    const outcome = await runIn(project, join(tools, 'attw'), args, 120_000);
    if (outcome.code !== 0) throw new Error(outcome.describe());
    return outcome.stdout.trim();
  });

  // An external server (ZOOKEEPER_CONNECT) serves the round trips as well as one of our own.
  let connectString = externalConnectString();
  if (connectString === undefined) {
    console.log('starting ZooKeeper ...');
    server = await startStandalone({ tickTime: 500 });
    connectString = server.connectString;
  } else {
    console.log(`using ZOOKEEPER_CONNECT=${connectString}`);
  }

  await step(`node ${process.version}: import the three entry points`, async () =>
    expectOk(await runIn(project, process.execPath, ['main.mjs', connectString, 'node'], 60_000)),
  );
  await step(`node ${process.version}: require() the three entry points`, async () =>
    expectOk(await runIn(project, process.execPath, ['require.cjs'], 60_000)),
  );
  await step('bun: import the three entry points', async () =>
    expectOk(await runIn(project, join(tools, 'bun'), ['main.mjs', connectString, 'bun'], 60_000)),
  );
  await step('deno: npm: specifiers', async () => {
    const args = [
      'run',
      '--quiet',
      '--no-prompt',
      '--allow-net=127.0.0.1',
      '--allow-read',
      '--allow-env',
      'deno.mjs',
      connectString,
      'deno',
    ];
    return expectOk(await runIn(project, join(tools, 'deno'), args, 90_000));
  });
  await step('workerd: esbuild bundle (as wrangler) run in workerd', async () => {
    const bundle = await bundleWorker(project);
    return runWorker(join(tools, 'workerd'), bundle, connectString);
  });

  const oldest = await installOldestNode(work);
  await step(
    `oldest supported node (${oldest.wanted}): import, round trip, zkts --help, require()`,
    async () => {
      if (!oldest.binary) throw new Error(oldest.detail);
      const lines = [
        oldest.detail,
        expectOk(
          await runIn(project, oldest.binary, ['main.mjs', connectString, 'oldest'], 60_000),
        ),
      ];
      const help = await runIn(
        project,
        oldest.binary,
        ['node_modules/zookeeper-ts/dist/cli/main.js', '--help'],
        60_000,
      );
      if (help.code !== 0) throw new Error(help.describe());
      // The README says which Node versions can require() the package: 20.19+ (and 22.12+).
      const required = await runIn(project, oldest.binary, ['require.cjs'], 60_000);
      if (requireEsmSupported(oldest.wanted)) expectOk(required);
      else if (!required.stderr.includes('ERR_REQUIRE_ESM')) throw new Error(required.describe());
      lines.push(`require(): ${required.code === 0 ? 'works' : 'ERR_REQUIRE_ESM, as documented'}`);
      return lines.join('\n');
    },
  );
} catch (error) {
  steps.push({ name: 'driver', ms: 0, ok: false, detail: String(error) });
  console.log(`FAIL driver: ${String(error)}`);
} finally {
  await server?.close();
  if (values.keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

const failed = steps.filter((s) => !s.ok);
const total = steps.reduce((sum, s) => sum + s.ms, 0);
console.log(
  `\npackage: ${steps.length - failed.length} passed, ${failed.length} failed (${(total / 1000).toFixed(1)} s)`,
);
for (const s of failed) console.log(`  FAILED ${s.name}`);
process.exitCode = failed.length === 0 ? 0 : 1;

/** Whether this Node loads ES modules through require() without a flag (20.19+ in 20.x, 22.12+). */
function requireEsmSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major === 20 ? minor >= 19 : major === 22 ? minor >= 12 : major >= 23;
}
