// locks [-R] [--watch] PATH: who holds a lock, since when, and who waits.
import { ZooKeeperError } from '../../index.js';
import { findLocks, inspectLock } from '../../locks/index.js';
import type { CommandContext } from '../context.js';
import { requireNode } from '../election-view.js';
import { UsageError } from '../errors.js';
import { folderJson, inspectionJson, printFolders, printInspection } from '../locks-view.js';
import { isoTime } from '../output.js';
import { type Command, JSON_OPTION } from './types.js';

/** Events within this window are shown as one new view (a handoff is a delete and a grant). */
const SETTLE_MS = 30;

export const locks: Command = {
  name: 'locks',
  usage: 'locks [-R] [--watch] PATH',
  summary: 'show who holds a lock and who waits (-R: every lock under PATH)',
  details:
    'Lists the contenders of the lock at PATH in grant order: holder or waiting, kind (mutex,\n' +
    'read, write, lease, exclusive), naming (curator or kazoo, so Java and Python processes show\n' +
    'up too), owner session, age, fencing token (czxid) and node data (Curator stores the owner’s\n' +
    'IP address, kazoo its identifier). Understands Curator’s and kazoo’s layouts and ours.\n' +
    'On an election path: the LeaderLatch candidates in line, the leader first (see also\n' +
    '`zkts elect --list`). A PATH that does not exist exits 3 (NONODE).\n' +
    '-R finds every lock folder under PATH, with its holder and queue length.\n' +
    '--watch prints the view again on every change (a persistent watch) until Ctrl-C.\n' +
    '--json gives one object per view (one line each with --watch).',
  options: [
    { long: 'recursive', short: 'R', help: 'every lock under PATH' },
    { long: 'watch', short: 'w', help: 'keep the view live until Ctrl-C' },
    {
      long: 'max-leases',
      value: 'N',
      help: 'a semaphore’s number of leases (lease nodes beyond it show as waiting)',
    },
    JSON_OPTION,
  ],
  args: { min: 1, max: 1 },
  interruptible: true,
  async run(ctx, { options, positionals }) {
    const path = positionals[0]!;
    const recursive = options.has('recursive');
    const maxLeases = options.integer('max-leases', 1, 0x7fffffff);
    if (recursive && maxLeases !== undefined) {
      throw new UsageError('--max-leases applies to one lock, not to -R');
    }
    const client = await ctx.client();
    const watching = options.has('watch');
    const show = async (signal: AbortSignal) => {
      if (recursive) {
        const folders = await findLocks(client, path, { signal });
        // A path that does not exist is an error, not an empty view (unless watched: it may come).
        if (folders.length === 0 && !watching) await requireNode(client, path, signal);
        if (ctx.out.json) ctx.out.emit({ root: path, locks: folders.map(folderJson) });
        else printFolders(ctx.out, path, folders);
      } else {
        const view = await inspectLock(client, path, { maxLeases, signal });
        if (view.contenders.length === 0 && !watching) await requireNode(client, path, signal);
        if (ctx.out.json) ctx.out.emit(inspectionJson(view));
        else printInspection(ctx.out, view);
      }
    };
    if (!watching) {
      await show(ctx.call().signal);
      return 0;
    }
    return watchLocks(ctx, path, show);
  },
};

async function watchLocks(
  ctx: CommandContext,
  path: string,
  show: (signal: AbortSignal) => Promise<void>,
): Promise<number> {
  const client = await ctx.client();
  // Recursive: a semaphore's leases and guard queue live one level down.
  const events = client.watch(path, { recursive: true, signal: ctx.interrupt });
  const iterator = events[Symbol.asyncIterator]();
  try {
    // Replies come in order: once this one is back, the watch is set and no change is missed.
    await client.exists(path, ctx.call());
    ctx.note(`watching the locks at ${path} (Ctrl-C to stop)`);
    // One next() at a time: a call that lost a race is kept, so its event is never dropped. Each
    // is awaited later, maybe after a Ctrl-C has rejected it (while a view was being read): the
    // rejection is handled where it is awaited, never reported as unhandled meanwhile.
    const next = () => {
      const call = iterator.next();
      call.catch(() => {});
      return call;
    };
    let pending = next();
    for (;;) {
      if (!ctx.out.json) ctx.out.line(ctx.out.dim(`-- ${isoTime(Date.now())}`));
      await show(ctx.call().signal);
      let event = await pending;
      // Let a burst of events (a release, then a grant) settle into one view.
      for (;;) {
        if (event.done) return 0;
        if (event.value.type === 'None') throw sessionEnded(path, event.value.state);
        pending = next();
        let timer: NodeJS.Timeout | number | undefined;
        const settled = await Promise.race([
          pending,
          new Promise<undefined>((resolve) => {
            timer = setTimeout(resolve, SETTLE_MS);
          }),
        ]);
        clearTimeout(timer);
        if (settled === undefined) break;
        event = settled;
      }
    }
  } catch (error) {
    if (ctx.interrupt.aborted) return 0;
    throw error;
  } finally {
    await iterator.return?.();
  }
}

function sessionEnded(path: string, state: string | undefined): ZooKeeperError {
  return new ZooKeeperError('SESSIONEXPIRED', `the session ended (${state ?? 'closed'})`, { path });
}
