// Child process of the heap scenario (run with --expose-gc): opens N idle sessions of one client
// and prints the heap they cost as JSON. A separate process so nothing else lives on its heap.
import { setTimeout as sleep } from 'node:timers/promises';
import { closeNzk } from './baselines/nzk.js';
import { closeAll, closeOurs, openNzk, openOurs } from './drivers/sessions.js';

const [impl, server, countText] = process.argv.slice(2);
const count = Number(countText);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
if (!server || !Number.isInteger(count) || count < 1) {
  throw new Error('usage: heap-probe.ts ours|nzk <server> <count>');
}

async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await sleep(50);
  }
  return process.memoryUsage();
}

/** Live handles by kind (Timeout, TCPSocketWrap, ...): the timers and sockets sessions keep. */
function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo())
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

async function open(n: number): Promise<() => Promise<void>> {
  if (impl === 'ours') {
    const sessions = await openOurs(server!, n, 50);
    return () => closeAll(sessions, closeOurs);
  }
  if (impl === 'nzk') {
    const sessions = await openNzk(server!, n, 50);
    return () => closeAll(sessions, closeNzk);
  }
  throw new Error(`unknown client ${impl}`);
}

// One session first, so lazily loaded modules and one-time caches are not counted per session.
await (await open(1))();
const before = await settledMemory();
const resourcesBefore = resources();
const close = await open(count);
// Idle for a moment: connect-time garbage goes, steady-state buffers stay.
await sleep(1000);
const after = await settledMemory();
const resourcesAfter = resources();
await close();
const perSession = (kind: string) =>
  ((resourcesAfter.get(kind) ?? 0) - (resourcesBefore.get(kind) ?? 0)) / count;
process.stdout.write(
  `${JSON.stringify({
    count,
    heapUsedPerSession: (after.heapUsed - before.heapUsed) / count,
    externalPerSession: (after.external - before.external) / count,
    rssPerSession: (after.rss - before.rss) / count,
    timersPerSession: perSession('Timeout'),
    socketsPerSession: perSession('TCPSocketWrap'),
  })}\n`,
);
