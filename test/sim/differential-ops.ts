// The differential script over every opcode the client speaks: a seeded random sequence of
// operations by two sessions, each drawn from the whole surface (create2 in every mode, TTL and
// container included; delete, setData and setACL with right and wrong versions; exists, getData,
// getChildren and getChildren2 with one-shot watches; multi and multiRead; persistent and
// recursive watches; removeWatches; getEphemerals; getAllChildrenNumber; getACL; digest addAuth
// and whoAmI; sync; close and reopen). The log is independent of zxids, times and session ids;
// run against the real ZooKeeper and the model, the two must be equal. What the model does not
// model (ACL enforcement, getConfig) is left out and listed in docs/testing-your-code.md.
import type { Client } from '../../src/client/client.js';
import { Op } from '../../src/client/multi.js';
import {
  CreateMode,
  Ids,
  type Stat,
  type WatchedEvent,
  type WatcherKind,
} from '../../src/client/types.js';
import { Rng } from './env.js';
import { iteratorsCaughtUp, scriptKit } from './script-kit.js';

export interface OpsScriptOptions {
  seed: number;
  /** A fresh, empty path for this run (same name on both sides). */
  base: string;
  steps: number;
  /** Opens session `k` (again). */
  open(k: number): Promise<Client>;
}

const SESSIONS = 2;
const MODES = [
  'PERSISTENT',
  'EPHEMERAL',
  'PERSISTENT_SEQUENTIAL',
  'EPHEMERAL_SEQUENTIAL',
  'CONTAINER',
  'PERSISTENT_WITH_TTL',
  'PERSISTENT_SEQUENTIAL_WITH_TTL',
] as const;
const KINDS: readonly WatcherKind[] = [
  'data',
  'children',
  'any',
  'persistent',
  'persistentRecursive',
];

/** The kinds of step, each with its share of the draw. */
const STEPS = [
  ['create', 16],
  ['delete', 7],
  ['setData', 7],
  ['exists', 6],
  ['getData', 6],
  ['getChildren', 5],
  ['getChildren2', 3],
  ['multi', 8],
  ['multiRead', 5],
  ['addWatch', 5],
  ['removeWatches', 6],
  ['getEphemerals', 5],
  ['getAllChildrenNumber', 4],
  ['getACL', 4],
  ['setACL', 4],
  ['addAuth', 3],
  ['sync', 3],
  ['reopen', 3],
] as const;
const TOTAL = STEPS.reduce((sum, [, share]) => sum + share, 0);

/** The kind of step a draw in [0, TOTAL) lands on. */
function stepKind(roll: number): (typeof STEPS)[number][0] {
  let left = roll;
  for (const [kind, share] of STEPS) {
    left -= share;
    if (left < 0) return kind;
  }
  return STEPS[0][0];
}

/** Runs the script; returns the log, one line per reply or watch event. */
export async function runOpsScript(options: OpsScriptOptions): Promise<string[]> {
  const rng = new Rng(options.seed);
  const { base } = options;
  const kit = scriptKit(base, options.open, rng);
  const { log, clients, buffers, streams, owners, created, rel, flush, pick, settle, attempt } =
    kit;
  const open = kit.open;
  const owner = (id: bigint) => {
    if (id === 0n) return '-';
    const k = owners.get(id);
    // Not a session: a container's or a TTL node's marker, compared by value.
    return k === undefined ? `0x${BigInt.asUintN(64, id).toString(16)}` : `s${k}`;
  };
  const stat = (s: Stat | null) =>
    s
      ? `v${s.version} cv${s.cversion} av${s.aversion} dl${s.dataLength} nc${s.numChildren} eph${owner(s.ephemeralOwner)}`
      : 'null';
  const watcher = (k: number, what: string) => (event: WatchedEvent) => {
    buffers[k]!.push(`ev s${k} ${what} ${event.type} ${rel(event.path)}`);
  };
  for (let k = 0; k < SESSIONS; k++) await open(k);
  await clients[0]!.create(base);
  const version = () => (rng.chance(0.6) ? -1 : rng.int(0, 2));
  const createOptions = (mode: (typeof MODES)[number]) =>
    mode.endsWith('_WITH_TTL')
      ? { mode: CreateMode[mode], ttl: rng.int(1, 100_000) }
      : { mode: CreateMode[mode] };
  for (let step = 0; step < options.steps; step++) {
    const k = rng.int(0, SESSIONS - 1);
    const c = clients[k]!;
    const path = pick();
    const kind = stepKind(rng.int(0, TOTAL - 1));
    switch (kind) {
      case 'create': {
        const mode = rng.pick(MODES);
        const opts = createOptions(mode);
        await attempt(k, `create ${rel(path)} ${mode}`, async () => {
          const out = await c.create2(path, rng.pick(['', 'd1', 'data-2']), opts);
          created.push(out.path);
          return `${rel(out.path)} ${stat(out.stat)}`;
        });
        break;
      }
      case 'delete': {
        const v = version();
        await attempt(k, `delete ${rel(path)} ${v}`, async () => {
          await c.delete(path, v);
          return 'ok';
        });
        break;
      }
      case 'setData': {
        const v = version();
        await attempt(k, `setData ${rel(path)} ${v}`, async () =>
          stat(await c.setData(path, `v${step}`, v)),
        );
        break;
      }
      case 'exists':
      case 'getData':
      case 'getChildren': {
        const watch = rng.chance(0.7) ? { watch: watcher(k, `${kind} ${rel(path)}`) } : {};
        await attempt(k, `${kind} ${rel(path)} ${'watch' in watch}`, async () => {
          if (kind === 'exists') return stat(await c.exists(path, watch));
          if (kind === 'getData') {
            const out = await c.getData(path, watch);
            return `${new TextDecoder().decode(out.data)} ${stat(out.stat)}`;
          }
          return (await c.getChildren(path, watch)).sort().join(',');
        });
        break;
      }
      case 'getChildren2': {
        const target = rng.chance(0.5) ? base : path;
        await attempt(k, `getChildren2 ${rel(target)}`, async () => {
          const out = await c.getChildren2(target);
          return `${out.children.sort().join(',')} ${stat(out.stat)}`;
        });
        break;
      }
      case 'multi': {
        const ops = Array.from({ length: rng.int(1, 3) }, () => {
          const p = pick();
          const r = rng.next();
          if (r < 0.4) return Op.create(p, 'm', createOptions(rng.pick(MODES)));
          if (r < 0.6) return Op.setData(p, 'm2', rng.chance(0.7) ? -1 : 0);
          if (r < 0.8) return Op.delete(p, -1);
          return Op.check(p, rng.chance(0.5) ? -1 : 0);
        });
        await attempt(
          k,
          `multi ${ops.map((o) => `${o.type} ${rel(o.path)}`).join('; ')}`,
          async () =>
            (await c.multi(ops))
              .map((r) =>
                'path' in r && typeof r.path === 'string' ? `${r.type} ${rel(r.path)}` : r.type,
              )
              .join('; '),
        );
        break;
      }
      case 'multiRead': {
        const ops = Array.from({ length: rng.int(1, 3) }, () =>
          rng.chance(0.5) ? Op.getData(pick()) : Op.getChildren(rng.chance(0.5) ? base : pick()),
        );
        await attempt(
          k,
          `multiRead ${ops.map((o) => `${o.type} ${rel(o.path)}`).join('; ')}`,
          async () =>
            (await c.multiRead(ops))
              .map((r) => {
                if (r.type === 'getData') return `data ${stat(r.stat)}`;
                if (r.type === 'getChildren') return `children ${[...r.children].sort().join(',')}`;
                return JSON.stringify(r, (_key, v) => (typeof v === 'bigint' ? String(v) : v));
              })
              .join('; '),
        );
        break;
      }
      case 'addWatch': {
        const target = rng.chance(0.5) ? base : path;
        const recursive = rng.chance(0.5);
        const label = recursive ? 'recursive' : 'persistent';
        await attempt(k, `addWatch ${rel(target)} ${label}`, async () => {
          const iterator = c.watch(target, { recursive });
          await iterator.ready;
          const stream: string[] = [];
          streams[k]!.push(stream);
          void (async () => {
            try {
              for await (const event of iterator)
                stream.push(`ev s${k} ${label} ${rel(target)} ${event.type} ${rel(event.path)}`);
            } catch {
              // Ends with the session or its removal.
            }
          })();
          return 'ok';
        });
        break;
      }
      case 'removeWatches': {
        const target = rng.chance(0.3) ? base : path;
        const watcherKind = rng.pick(KINDS);
        await attempt(k, `removeWatches ${rel(target)} ${watcherKind}`, async () => {
          await c.removeWatches(target, watcherKind);
          return 'ok';
        });
        break;
      }
      case 'getEphemerals': {
        const prefix = rng.chance(0.5) ? base : `${base}/${rng.pick(['a', 'b', 's'])}`;
        await attempt(k, `getEphemerals ${rel(prefix)}`, async () =>
          (await c.getEphemerals(prefix)).map(rel).join(','),
        );
        break;
      }
      case 'getAllChildrenNumber': {
        const target = rng.chance(0.5) ? base : path;
        await attempt(k, `getAllChildrenNumber ${rel(target)}`, async () =>
          String(await c.getAllChildrenNumber(target)),
        );
        break;
      }
      case 'getACL':
        await attempt(k, `getACL ${rel(path)}`, async () => {
          const out = await c.getACL(path);
          const acl = out.acl.map((a) => `${a.id.scheme}:${a.id.id}:${a.perms}`).join(',');
          return `${acl} ${stat(out.stat)}`;
        });
        break;
      case 'setACL': {
        const v = rng.chance(0.6) ? -1 : rng.int(0, 2);
        await attempt(k, `setACL ${rel(path)} ${v}`, async () =>
          stat(await c.setACL(path, Ids.OPEN_ACL_UNSAFE, v)),
        );
        break;
      }
      case 'addAuth': {
        const user = rng.pick(['alice', 'bob']);
        await attempt(k, `addAuth digest ${user} + whoAmI`, async () => {
          await c.addAuth('digest', `${user}:secret-${user}`);
          const who = await c.whoAmI();
          // Sorted: the server keeps a connection's identities in a hash set, whose order the
          // model does not reproduce (docs/testing-your-code.md says so).
          return who
            .map((w) => `${w.authScheme}:${w.user}`)
            .sort()
            .join(',');
        });
        break;
      }
      case 'sync':
        await attempt(k, `sync ${rel(path)}`, async () => {
          await c.sync(path);
          return 'ok';
        });
        break;
      case 'reopen':
        await attempt(k, 'close and reopen', async () => {
          await c.close();
          flush(k);
          for (const other of clients) if (other !== c) await other.sync('/').catch(() => {});
          await iteratorsCaughtUp();
          streams[k] = [];
          await open(k);
          return 'ok';
        });
        break;
    }
    await settle();
  }
  for (const [k, c] of clients.entries()) {
    await c.close();
    for (const other of clients.slice(k + 1)) await other.sync('/').catch(() => {});
    await iteratorsCaughtUp();
    for (const j of buffers.keys()) flush(j);
  }
  return log;
}
