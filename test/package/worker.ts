// The Worker path: the consumer's worker.mjs bundled with esbuild the way wrangler bundles a
// module Worker, then served by workerd (no compatibility flags, so no nodejs_compat) and asked
// to do the round trip against the test server.
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { freePort } from '../harness/index.js';
import { startWorkerd } from '../runtimes/workerd.js';

/**
 * wrangler's settings for a module Worker: ESM, ES2022, the `workerd`/`worker`/`browser` export
 * conditions, `cloudflare:*` left to the runtime, and Node built-ins left external (wrangler
 * without nodejs_compat only warns about them): so a static `import 'node:net'` reaching the
 * bundle would make workerd refuse to load it, and this test fail.
 */
export async function bundleWorker(project: string): Promise<string> {
  const outfile = join(project, 'worker-bundle.js');
  const result = await build({
    absWorkingDir: project,
    entryPoints: [join(project, 'worker.mjs')],
    outfile,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['cloudflare:*', 'node:*'],
    keepNames: true,
    logLevel: 'silent',
  });
  if (result.errors.length > 0) throw new Error(result.errors.map((e) => e.text).join('\n'));
  return outfile;
}

function config(bundle: string, port: number): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .consumer),
    (name = "internet", network = (allow = ["public", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const consumer :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed ${JSON.stringify(basename(bundle))})],
  compatibilityDate = "2025-09-01",
);
`;
}

/** Serves the bundle and POSTs one round trip; returns the worker's report, throws on failure. */
export async function runWorker(
  workerd: string,
  bundle: string,
  connectString: string,
): Promise<string> {
  const port = await freePort();
  const file = `${bundle}.capnp`;
  writeFileSync(file, config(bundle, port));
  const server = await startWorkerd(workerd, file, [port]);
  try {
    const response = await fetch(`http://127.0.0.1:${port}/run`, {
      method: 'POST',
      body: JSON.stringify({ connectString }),
      signal: AbortSignal.timeout(60_000),
    });
    const body = await response.text();
    const lines = body.trim().split('\n');
    if (response.ok && lines.at(-1) === 'ok') return lines.slice(0, -1).join('\n');
    throw new Error(`worker answered ${response.status}:\n${body}`);
  } catch (error) {
    const log = await server.stop();
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\nworkerd log:\n${log.slice(-2000)}`,
    );
  } finally {
    await server.stop();
  }
}
