// What the queues share: the entries' names in each layout (kazoo's `entry-<priority>-<seq>`,
// Curator's `queue-<seq>` and `qn-<seq>`), Curator's framing of a DistributedQueue node, and the
// one wait of a take: list the queue's directories with a watch on each, and look again when any
// of them changes.
import type { RecipeClient } from '../client/recipe-client.js';
import { stopping } from '../coordination/bound-signal.js';
import { hasCode } from '../coordination/codes.js';
import { childPath } from '../coordination/naming.js';
import { retry } from '../coordination/retry.js';
import { joinWatcher } from '../coordination/watchers.js';
import { InvalidArgumentError } from '../protocol/errors.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { ensurePathUntil } from './paths.js';

/**
 * The node layouts a queue can share with other clients:
 * - `'kazoo'`: kazoo's `Queue`, entries `<path>/entry-<priority, 3 digits>-<seq>`, raw bytes;
 * - `'curator'`: Curator's `DistributedQueue`, entries `<path>/queue-<seq>`, each node holding
 *   one or more items in Curator's framing;
 * - `'curator-simple'`: Curator's `SimpleDistributedQueue`, entries `<path>/qn-<seq>`, raw bytes.
 */
export type QueueLayout = 'kazoo' | 'curator' | 'curator-simple';

/** kazoo's default priority (lower runs first). */
export const DEFAULT_PRIORITY = 100;

const PREFIXES: Record<QueueLayout, string> = {
  kazoo: 'entry-',
  curator: 'queue-',
  'curator-simple': 'qn-',
};

/** The layouts, for argument checks. */
export const QUEUE_LAYOUTS = Object.keys(PREFIXES) as readonly QueueLayout[];

/** The name (without the server's sequence suffix) a new entry is created with. */
export function entryPrefix(layout: QueueLayout, priority: number): string {
  if (layout !== 'kazoo') return PREFIXES[layout];
  return `${PREFIXES.kazoo}${String(priority).padStart(3, '0')}-`;
}

/** Whether `name` is an entry of `layout` (other children are left alone, as Curator does). */
export function isEntryName(layout: QueueLayout, name: string): boolean {
  return name.startsWith(PREFIXES[layout]);
}

/**
 * The entries among `children`, in the order every client of these layouts takes them: by name,
 * code unit by code unit (Python's `sorted` and Java's `Collections.sort` agree on these ASCII
 * names), so a lower priority, then an older sequence number, comes first.
 */
export function entriesInOrder(layout: QueueLayout, children: readonly string[]): string[] {
  return children.filter((name) => isEntryName(layout, name)).sort(byCodeUnit);
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The priority in a kazoo entry's name (`entry-042-...` is 42); undefined when there is none. */
export function priorityOf(name: string): number | undefined {
  const match = /^entry-(\d{3})-/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** Throws an InvalidArgumentError unless `priority` is kazoo's: an integer from 0 to 999. */
export function checkPriority(priority: unknown, path: string): number {
  if (priority === undefined) return DEFAULT_PRIORITY;
  if (!(Number.isInteger(priority) && (priority as number) >= 0 && (priority as number) <= 999)) {
    throw new InvalidArgumentError(
      `priority must be an integer from 0 to 999, got ${String(priority)}`,
      { path },
    );
  }
  return priority as number;
}

// Curator's framing of a DistributedQueue node: a version (int32 0x00010001), then per item an
// opcode byte 0x01, its length (int32, big-endian) and its bytes, and an end opcode 0x02.
const FRAMING_VERSION = 0x00010001;
const ITEM = 0x01;
const END = 0x02;

/** `items` framed as Curator's DistributedQueue writes one node. */
export function encodeCuratorItems(items: readonly Uint8Array[]): Uint8Array {
  const size = 4 + items.reduce((sum, item) => sum + 5 + item.length, 0) + 1;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setInt32(0, FRAMING_VERSION);
  let at = 4;
  for (const item of items) {
    out[at] = ITEM;
    view.setInt32(at + 1, item.length);
    out.set(item, at + 5);
    at += 5 + item.length;
  }
  out[at] = END;
  return out;
}

/** The items of a node in Curator's framing; undefined when the bytes are not that framing. */
export function decodeCuratorItems(bytes: Uint8Array): Uint8Array[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 5 || view.getInt32(0) !== FRAMING_VERSION) return undefined;
  const items: Uint8Array[] = [];
  for (let at = 4; at < bytes.length; ) {
    const opcode = bytes[at];
    if (opcode === END) return items;
    if (opcode !== ITEM || at + 5 > bytes.length) return undefined;
    const length = view.getInt32(at + 1);
    if (length < 0 || at + 5 + length > bytes.length) return undefined;
    items.push(bytes.slice(at + 5, at + 5 + length));
    at += 5 + length;
  }
  return undefined;
}

/** The key of a getChildren watch on `dir`, shared by every take waiting on it (see joinWatcher). */
function childWatchKey(dir: string): string {
  return `getChildren:${dir}`;
}

/**
 * Lists each of `dirs` with a watch, hands the listings to `look`, and resolves what it finds;
 * when it finds nothing, waits until a listing changes and looks again. A directory found
 * missing is created (persistent, as kazoo's `ensure_path` does) before the next look. Rejects
 * with the signal's reason once it aborts. The watchers are shared per client and directory, so
 * takes that give up leave no closure of their own behind.
 */
export async function lookUntilFound<T>(
  client: RecipeClient,
  dirs: readonly string[],
  signal: StopSignal,
  look: (listings: readonly string[][]) => Promise<T | null>,
): Promise<T> {
  for (;;) {
    if (signal.aborted) throw signal.reason;
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const members = dirs.map((dir) => joinWatcher(client, childWatchKey(dir), () => wake()));
    signal.addEventListener('abort', wake, { once: true });
    try {
      const listings: string[][] = [];
      let missing = false;
      for (const [i, dir] of dirs.entries()) {
        const member = members[i]!;
        try {
          listings.push(
            await retry(
              () => client.getChildren(dir, stopping({ watch: member.watcher }, signal)),
              {
                signal,
              },
            ),
          );
          member.armed();
        } catch (error) {
          if (!hasCode(error, 'NONODE') || signal.aborted) throw error;
          missing = true;
        }
      }
      if (missing) {
        for (const dir of dirs) await ensurePathUntil(client, dir, false, signal);
        continue;
      }
      const found = await look(listings);
      if (found !== null) return found;
      await woken;
    } catch (error) {
      throw signal.aborted ? signal.reason : error;
    } finally {
      signal.removeEventListener('abort', wake);
      for (const member of members) member.leave();
    }
  }
}

/** `dir/name`. */
export function entryPath(dir: string, name: string): string {
  return childPath(dir, name);
}
