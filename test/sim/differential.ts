// The differential script: a seeded random sequence of operations by a few sessions (creates of
// every mode, deletes and setData with right and wrong versions, reads with one-shot watches,
// persistent and recursive watches, multi, session close and reopen), logged in a form that does
// not depend on the server's zxids, times or session ids. Run against the real ZooKeeper and the
// model, the two logs must be equal: where they differ, the model is wrong.

import type { Client } from '../../src/client/client.js';
import { Op } from '../../src/client/multi.js';
import { CreateMode, type Stat, type WatchedEvent } from '../../src/client/types.js';
import { Rng } from './env.js';
import { iteratorsCaughtUp, scriptKit } from './script-kit.js';

export interface ScriptOptions {
  seed: number;
  /** A fresh, empty path for this run (same name on both sides). */
  base: string;
  steps: number;
  sessions: number;
  /** Opens session `k` (again). */
  open(k: number): Promise<Client>;
}

const MODES = [
  'PERSISTENT',
  'EPHEMERAL',
  'PERSISTENT_SEQUENTIAL',
  'EPHEMERAL_SEQUENTIAL',
  'CONTAINER',
] as const;

/** Runs the script; returns the log, one line per reply or watch event. */
export async function runScript(options: ScriptOptions): Promise<string[]> {
  const rng = new Rng(options.seed);
  const { base } = options;
  const kit = scriptKit(base, options.open, rng);
  const { log, clients, buffers, streams, owners, created, rel, flush, pick, settle, attempt } =
    kit;
  const open = kit.open;
  const stat = (s: Stat | null) => {
    if (!s) return 'null';
    const owner = s.ephemeralOwner === 0n ? '-' : `s${owners.get(s.ephemeralOwner) ?? '?'}`;
    return `v${s.version} cv${s.cversion} av${s.aversion} dl${s.dataLength} nc${s.numChildren} eph${owner}`;
  };
  const watcher = (k: number, what: string) => (event: WatchedEvent) => {
    buffers[k]!.push(
      `ev s${k} ${what} ${event.type} ${rel(event.path)}${event.state ? ` ${event.state}` : ''}`,
    );
  };
  for (let k = 0; k < options.sessions; k++) await open(k);
  await clients[0]!.create(base);
  for (let step = 0; step < options.steps; step++) {
    const k = rng.int(0, options.sessions - 1);
    const c = clients[k]!;
    const path = pick();
    const roll = rng.next();
    if (roll < 0.22) {
      const mode = rng.pick(MODES);
      const data = rng.pick(['', 'd1', 'data-2']);
      await attempt(k, `create ${rel(path)} ${mode}`, async () => {
        const out = await c.create2(path, data, { mode: CreateMode[mode] });
        created.push(out.path);
        return `${rel(out.path)} ${stat(out.stat)}`;
      });
    } else if (roll < 0.32) {
      const version = rng.chance(0.6) ? -1 : rng.int(0, 2);
      await attempt(k, `delete ${rel(path)} ${version}`, async () => {
        await c.delete(path, version);
        return 'ok';
      });
    } else if (roll < 0.42) {
      const version = rng.chance(0.6) ? -1 : rng.int(0, 2);
      await attempt(k, `setData ${rel(path)} ${version}`, async () =>
        stat(await c.setData(path, `v${step}`, version)),
      );
    } else if (roll < 0.52) {
      const watch = rng.chance(0.7);
      await attempt(k, `exists ${rel(path)} ${watch}`, async () =>
        stat(await c.exists(path, watch ? { watch: watcher(k, `exists ${rel(path)}`) } : {})),
      );
    } else if (roll < 0.62) {
      const watch = rng.chance(0.7);
      await attempt(k, `getData ${rel(path)} ${watch}`, async () => {
        const out = await c.getData(path, watch ? { watch: watcher(k, `data ${rel(path)}`) } : {});
        return `${new TextDecoder().decode(out.data)} ${stat(out.stat)}`;
      });
    } else if (roll < 0.72) {
      const target = rng.chance(0.5) ? base : path;
      const watch = rng.chance(0.7);
      await attempt(k, `getChildren ${rel(target)} ${watch}`, async () => {
        const out = await c.getChildren(
          target,
          watch ? { watch: watcher(k, `child ${rel(target)}`) } : {},
        );
        return out.map(rel).sort().join(',');
      });
    } else if (roll < 0.8) {
      const ops = Array.from({ length: rng.int(1, 3) }, () => {
        const p = pick();
        const r = rng.next();
        if (r < 0.4) return Op.create(p, 'm', { mode: CreateMode[rng.pick(MODES)] });
        if (r < 0.6) return Op.setData(p, 'm2', rng.chance(0.7) ? -1 : 0);
        if (r < 0.8) return Op.delete(p, -1);
        return Op.check(p, rng.chance(0.5) ? -1 : 0);
      });
      await attempt(
        k,
        `multi ${ops.map((o) => `${o.type} ${rel(o.path)}`).join('; ')}`,
        async () => {
          const results = await c.multi(ops);
          return results
            .map((r) =>
              'path' in r && typeof r.path === 'string' ? `${r.type} ${rel(r.path)}` : r.type,
            )
            .join('; ');
        },
      );
    } else if (roll < 0.86) {
      const target = rng.chance(0.5) ? base : path;
      const recursive = rng.chance(0.5);
      await attempt(
        k,
        `addWatch ${rel(target)} ${recursive ? 'recursive' : 'persistent'}`,
        async () => {
          const iterator = c.watch(target, { recursive });
          const stream: string[] = [];
          streams[k]!.push(stream);
          void (async () => {
            try {
              for await (const event of iterator) {
                stream.push(
                  `ev s${k} ${recursive ? 'recursive' : 'persistent'} ${rel(target)} ${event.type} ${rel(event.path)}`,
                );
              }
            } catch {
              // Ends with the session.
            }
          })();
          return 'ok';
        },
      );
    } else if (roll < 0.9) {
      await attempt(k, 'close and reopen', async () => {
        await c.close();
        flush(k);
        for (const other of clients) if (other !== c) await other.sync('/').catch(() => {});
        await iteratorsCaughtUp();
        await open(k);
        return 'ok';
      });
    } else {
      await attempt(k, `getChildren2 ${rel(base)}`, async () => {
        const out = await c.getChildren2(base);
        return `${out.children.sort().join(',')} ${stat(out.stat)}`;
      });
    }
    await settle();
  }
  // One session at a time, the others synced in between: the events a close raises reach the
  // others before they close themselves (otherwise which comes first is a race on a real server).
  for (const [k, c] of clients.entries()) {
    await c.close();
    for (const other of clients.slice(k + 1)) await other.sync('/').catch(() => {});
    await iteratorsCaughtUp();
    for (const j of buffers.keys()) flush(j);
  }
  return log;
}
