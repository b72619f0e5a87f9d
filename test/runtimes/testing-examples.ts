// The testing guide's examples (docs/testing-your-code.md, examples/testing/) as the runtime
// driver runs them: each runtime's own test runner on its file (node --test, bun test, deno
// test; over TCP on loopback), and in workerd a Worker that runs the in-process server and its
// client over the in-memory transport. The vitest example runs in the unit tier.
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { freePort } from '../harness/index.js';
import { bundleFor, type ProcessResult, run } from './processes.js';
import { startWorkerd } from './workerd.js';

export interface RunnerCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/** Deno colours its summary: the escape sequences, to read past them. */
const COLOURS = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

const RUNNERS = {
  node: {
    file: 'examples/testing/node-test.test.ts',
    args: (file: string) => ['--import', 'tsx', '--test', file],
    passed: (out: string) => /^# pass 1$/m.test(out) && /^# fail 0$/m.test(out),
  },
  bun: {
    file: 'examples/testing/bun.test.ts',
    args: (file: string) => ['test', `./${file}`],
    passed: (out: string) => /^\s*1 pass$/m.test(out) && /^\s*0 fail$/m.test(out),
  },
  deno: {
    file: 'examples/testing/deno.test.ts',
    args: (file: string) => [
      'test',
      '--no-prompt',
      '--sloppy-imports',
      '--allow-net=127.0.0.1',
      '--no-check',
      file,
    ],
    passed: (out: string) => /ok \| 1 passed \| 0 failed/.test(out.replace(COLOURS, '')),
  },
} as const;

/** Runs the guide's example for `runtime` with that runtime's own test runner. */
export async function runnerExample(
  runtime: keyof typeof RUNNERS,
  binary: string,
): Promise<RunnerCheck> {
  const runner = RUNNERS[runtime];
  const result: ProcessResult = await run(binary, [...runner.args(runner.file)], 90_000);
  const output = `${result.stdout}\n${result.stderr}`;
  const ok = result.code === 0 && runner.passed(output);
  return {
    name: `${runner.file} (${runtime}'s test runner)`,
    ok,
    detail: ok
      ? ''
      : `exit ${result.code}${result.timedOut ? ' (timed out)' : ''}\n${output.trim().split('\n').slice(-15).join('\n')}`,
  };
}

/** Bundles examples/testing/worker.ts as a user's bundler would, runs it in workerd, asks it. */
export async function workerdTestingExample(workerd: string, dir: string): Promise<RunnerCheck> {
  const name = 'examples/testing/worker.ts (workerd, in-memory transport)';
  const bundle = await bundleFor('examples/testing/worker.ts', join(dir, 'testing-worker.js'));
  const port = await freePort();
  const config = join(dir, 'testing-worker.capnp');
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .testing)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const testing :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed ${JSON.stringify(basename(bundle.file))})],
  compatibilityDate = "2025-09-01",
);
`,
  );
  const server = await startWorkerd(workerd, config, [port]);
  try {
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      signal: AbortSignal.timeout(60_000),
    });
    const body = await response.text();
    const ok = response.status === 200 && body === 'ok';
    return { name, ok, detail: ok ? '' : `${response.status}: ${body}` };
  } catch (error) {
    return { name, ok: false, detail: String(error) };
  } finally {
    const log = await server.stop();
    if (log.includes('Uncaught'))
      console.log(`workerd log (testing example):\n${log.slice(-2000)}`);
  }
}
