// Entry for Node (tsx), Bun and Deno: runs the smoke suite once per named transport.
// Usage: <runtime> test/runtimes/cli.ts '<EntryConfig as JSON>'
import { defaultTransport } from '../../src/session/transports/index.js';
import { checkBackpressure } from './backpressure.js';
import type { EntryConfig } from './protocol.js';
import { resultLine } from './protocol.js';
import { runSmoke } from './smoke.js';
import { smokeOptionsFor, transportNamed } from './transports.js';

const args = (globalThis as { Deno?: { args: string[] } }).Deno?.args ?? process.argv.slice(2);
const config = JSON.parse(args[0] ?? '{}') as EntryConfig;

for (const name of config.transports) {
  console.log(`[${name}]`);
  const tlsOptions = (tls: { ca: string }) => ({ ca: tls.ca });
  const log = (line: string) => console.log(line);
  const report = await runSmoke(smokeOptionsFor(config, name, tlsOptions, log));
  // The adapter itself against a stalled peer (for `default`: the adapter the library picked).
  const started = Date.now();
  const adapter = transportNamed(name) ?? (await defaultTransport());
  const problem = await checkBackpressure(adapter).catch((error: unknown) => String(error));
  report.steps.push({
    name: 'backpressure (stalled peer)',
    ok: problem === null,
    ms: Date.now() - started,
    ...(problem === null ? {} : { detail: problem }),
  });
  report.ok &&= problem === null;
  console.log(
    `  ${problem === null ? 'ok  ' : 'FAIL'} backpressure (stalled peer) ${problem ?? ''}`,
  );
  console.log(resultLine(report));
}
