// What one idle session is made of, object by object: opens N sessions of one client in this
// process, takes a V8 heap snapshot before and after, and prints the difference per session
// grouped by what V8 calls each object (constructor name for objects, function name for
// closures, `array`, `string`, `code`, ...), largest first. Run it compiled, as the benchmark
// runs (closures under tsx carry esbuild's name wrapper):
//
//   npx esbuild bench/heap-census.ts --bundle --platform=node --format=esm \
//     --packages=external --outfile=node_modules/.cache/heap-census.mjs
//   node --expose-gc node_modules/.cache/heap-census.mjs ours|nzk <host:port> [count] [rows]

import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeHeapSnapshot } from 'node:v8';
import { closeNzk } from './baselines/nzk.js';
import { closeAll, closeOurs, openNzk, openOurs } from './drivers/sessions.js';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Writes a heap snapshot; parsed only after both are taken, so parsing adds nothing to either. */
function snapshot(): string {
  return writeHeapSnapshot(join(tmpdir(), `zkts-census-${process.pid}-${Date.now()}.heapsnapshot`));
}

/** Bytes and counts by `type:name` over every node of a heap snapshot file. */
function census(file: string): Map<string, { bytes: number; count: number }> {
  try {
    const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
    const fields = snap.snapshot.meta.node_fields;
    const types = snap.snapshot.meta.node_types[0];
    const width = fields.length;
    const typeAt = fields.indexOf('type');
    const nameAt = fields.indexOf('name');
    const sizeAt = fields.indexOf('self_size');
    const out = new Map<string, { bytes: number; count: number }>();
    for (let i = 0; i < snap.nodes.length; i += width) {
      const type = types[snap.nodes[i + typeAt]!]!;
      let name = snap.strings[snap.nodes[i + nameAt]!]!;
      // Strings and numbers are named by their content: group them by type only.
      if (
        type === 'string' ||
        type === 'concatenated string' ||
        type === 'sliced string' ||
        type === 'number'
      )
        name = '';
      if (name.length > 60) name = `${name.slice(0, 57)}...`;
      const key = `${type}:${name}`;
      const entry = out.get(key) ?? { bytes: 0, count: 0 };
      entry.bytes += snap.nodes[i + sizeAt]!;
      entry.count++;
      out.set(key, entry);
    }
    return out;
  } finally {
    if (process.env.ZKTS_CENSUS_KEEP) process.stderr.write(`kept ${file}\n`);
    else rmSync(file, { force: true });
  }
}

const [impl, server, countText = '500', rowsText = '40'] = process.argv.slice(2);
const count = Number(countText);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc || !server || (impl !== 'ours' && impl !== 'nzk')) {
  throw new Error('usage: node --expose-gc heap-census.mjs ours|nzk <host:port> [count] [rows]');
}

async function settle(): Promise<void> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await sleep(50);
  }
}

async function open(n: number): Promise<() => Promise<void>> {
  if (impl === 'ours') {
    const sessions = await openOurs(server!, n, 50);
    return () => closeAll(sessions, closeOurs);
  }
  const sessions = await openNzk(server!, n, 50);
  return () => closeAll(sessions, closeNzk);
}

// One session first, so modules and one-time caches are not counted per session.
await (await open(1))();
await settle();
const beforeFile = snapshot();
const close = await open(count);
await sleep(1000);
await settle();
const afterFile = snapshot();
await close();
const before = census(beforeFile);
const after = census(afterFile);

const rows: { key: string; bytes: number; count: number }[] = [];
for (const [key, a] of after) {
  const b = before.get(key) ?? { bytes: 0, count: 0 };
  rows.push({ key, bytes: (a.bytes - b.bytes) / count, count: (a.count - b.count) / count });
}
rows.sort((x, y) => y.bytes - x.bytes);
const total = rows.reduce((sum, r) => sum + r.bytes, 0);
process.stdout.write(
  `${impl}: ${count} idle sessions, ${total.toFixed(0)} heap bytes per session\n`,
);
process.stdout.write('bytes/session  objects/session  type:name\n');
for (const r of rows.slice(0, Number(rowsText))) {
  if (Math.abs(r.bytes) < 1) continue;
  process.stdout.write(
    `${r.bytes.toFixed(0).padStart(13)}  ${r.count.toFixed(2).padStart(15)}  ${r.key}\n`,
  );
}
process.exit(0);
