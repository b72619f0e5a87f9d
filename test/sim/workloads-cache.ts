// The TreeCache workload: p0 keeps a TreeCache of /cache while the other processes create, change
// and delete nodes under it (persistent nodes, up to three levels deep). Writers stop now and
// then; at each such quiescent point p0 lets its session catch up (sync, then a read behind its
// cache's reads) and the invariant is judged: the mirror equals the leader's tree under the root,
// node for node (data, version, mzxid, czxid). Faults (resets, black holes, expiries with renewal,
// member crashes) hit the cache's client as they hit every client, so its resync is what keeps it
// right.
import type { Client } from '../../src/client/client.js';
import { type RecipeClient, TreeCache } from '../../src/recipes/index.js';
import type { Workload } from './workloads.js';
import { isFinal, sleep } from './workloads.js';
import type { World } from './world.js';

export const CACHE_ROOT = '/cache';

/** The paths writers touch: up to three levels of `a`/`b` under the root (14 paths). */
const PATHS = (() => {
  const paths: string[] = [];
  const grow = (prefix: string, depth: number) => {
    if (depth === 3) return;
    for (const name of ['a', 'b']) {
      paths.push(`${prefix}/${name}`);
      grow(`${prefix}/${name}`, depth + 1);
    }
  };
  grow(CACHE_ROOT, 0);
  return paths;
})();

/** How many rounds a difference must last, with the tree unchanged, to be a violation. */
const STABLE_ROUNDS = 4;
const MAX_ROUNDS = 40;

const hex = (data: Uint8Array) => Buffer.from(data).toString('hex');

/** The mirror as lines `path version mzxid czxid data`, sorted. */
function mirrorOf(cache: TreeCache): string[] {
  return [...cache.entries()]
    .map((n) => `${n.path} v${n.stat.version} m${n.stat.mzxid} c${n.stat.czxid} ${hex(n.data)}`)
    .sort();
}

/** The leader's committed tree under the root, in the same form. */
function leaderTreeOf(world: World): string[] {
  const tree = world.ensemble!.leader.tree;
  const lines: string[] = [];
  const walk = (path: string) => {
    const node = tree.get(world.chroot + path);
    if (!node) return;
    lines.push(`${path} v${node.version} m${node.mzxid} c${node.czxid} ${hex(node.data)}`);
    for (const name of node.children) walk(`${path}/${name}`);
  };
  walk(CACHE_ROOT);
  return lines.sort();
}

/** The first lines where two sorted snapshots differ, for the violation's text. */
function difference(mirror: string[], server: string[]): string {
  const onlyMirror = mirror.filter((line) => !server.includes(line)).slice(0, 3);
  const onlyServer = server.filter((line) => !mirror.includes(line)).slice(0, 3);
  return `cache has [${onlyMirror.join('; ')}], server has [${onlyServer.join('; ')}]`;
}

export const cacheWorkload: Workload = {
  name: 'cache',
  root: CACHE_ROOT,
  // Runs only when named (`--workload cache`, or a cache plant): the other seeds keep their worlds.
  pooled: false,
  create(world) {
    let writing = true;
    let inFlight = 0;
    const wrap = world.plant?.cacheClient;

    /** One write by a writer; errors (the node is there, is not, has children, lost link) are fine. */
    const write = async (client: Client) => {
      const rng = world.rng;
      const path = rng.pick(PATHS);
      const data = new Uint8Array([rng.int(0, 255)]);
      const roll = rng.next();
      inFlight++;
      try {
        if (roll < 0.4) await client.create(path, data);
        else if (roll < 0.75) await client.setData(path, data, -1);
        else await client.delete(path, -1);
      } catch {
        // NODEEXISTS, NONODE, NOTEMPTY, CONNECTIONLOSS...: the tree is what it is.
      } finally {
        inFlight--;
      }
    };

    /**
     * At a quiescent point: rounds of sync plus a read behind the cache's own reads, until the
     * mirror equals the leader's tree. A difference that lasts STABLE_ROUNDS rounds while the
     * client stayed connected and the tree did not change is a violation.
     */
    const judge = async (
      client: Client,
      cache: TreeCache,
      name: string,
      stopping: () => boolean,
    ) => {
      let same = 0;
      let last = '';
      for (let round = 0; round < MAX_ROUNDS && !stopping(); round++) {
        const reconnects = world.reconnects.get(name) ?? 0;
        if (client.state !== 'connected') {
          same = 0;
          await sleep(200);
          continue;
        }
        try {
          await client.sync(CACHE_ROOT);
          // Let the cache send the reads for the events that came before the sync's reply, then
          // read behind them: one session's replies come in order.
          await sleep(5);
          await client.getData(CACHE_ROOT);
          await sleep(0);
        } catch {
          same = 0;
          continue;
        }
        if (client.state !== 'connected' || (world.reconnects.get(name) ?? 0) !== reconnects) {
          same = 0;
          continue;
        }
        const mirror = mirrorOf(cache);
        const server = leaderTreeOf(world);
        if (mirror.join('\n') === server.join('\n')) {
          world.stats.cacheChecks = (world.stats.cacheChecks ?? 0) + 1;
          world.log(`${name} cache equals the server (${mirror.length} nodes)`);
          return;
        }
        const both = `${mirror.join('\n')}|${server.join('\n')}`;
        same = both === last ? same + 1 : 1;
        last = both;
        if (same >= STABLE_ROUNDS) {
          world.violation(
            `cache differs from the server at a quiescent point: ${difference(mirror, server)}`,
          );
          return;
        }
      }
    };

    return {
      async run(ctx) {
        const { client, name, index } = ctx;
        const rng = world.rng;
        if (index > 0) {
          // A writer: writes while writing is on, idles otherwise.
          while (!ctx.stopping() && !isFinal(client.state)) {
            if (writing) await write(client);
            await sleep(rng.int(5, 120));
          }
          return;
        }
        // p0: the cache, and the rhythm of the writers.
        const seen: RecipeClient = wrap ? wrap(client, world) : client;
        while (!ctx.stopping() && !isFinal(client.state)) {
          const cache = new TreeCache(seen, CACHE_ROOT);
          try {
            await world.track(`${name} cache start`, cache.start());
          } catch (error) {
            world.log(`${name} cache start failed: ${(error as Error).name}`);
            // A cache whose start failed keeps trying in the background until closed.
            await world.track(`${name} cache close`, cache.close());
            await sleep(rng.int(50, 500));
            continue;
          }
          world.log(`${name} cache started (${cache.size} nodes)`);
          while (!ctx.stopping() && !isFinal(client.state)) {
            writing = true;
            await sleep(rng.int(200, 3000));
            writing = false;
            const since = world.sched.now;
            while (inFlight > 0 && world.sched.now - since < 20_000 && !ctx.stopping()) {
              await sleep(20);
            }
            await world.track(`${name} cache judge`, judge(client, cache, name, ctx.stopping));
          }
          await world.track(`${name} cache close`, cache.close());
        }
        writing = true;
      },
      check() {},
      audit() {},
    };
  },
};
