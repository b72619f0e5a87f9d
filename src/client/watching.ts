// Watches set and removed by the facade: the one-shot watch a read leaves once the server accepted
// it, persistent watches as iterators (addWatch), and removeWatches. The registry that fans server
// notifications out to them is the engine's (src/session/watches.ts).
import { codecs } from '../protocol/codecs.js';
import { ErrorCode, makeError } from '../protocol/errors.js';
import { AddWatchModeCode, WatcherTypeCode } from '../protocol/ops.js';
import { validatePath } from '../protocol/paths.js';
import type { OneShotKind } from '../session/watches.js';
import type { ClientCore } from './core.js';
import { PersistentWatch, type PersistentWatchIterator } from './persistent-watch.js';
import type {
  PersistentWatchOptions,
  RemoveWatchesOptions,
  Watcher,
  WatcherKind,
} from './types.js';

/** The reply hook of a read that leaves a one-shot watch: registered only if the read succeeded. */
export function watchOnSuccess(
  { session }: ClientCore,
  kind: OneShotKind,
  path: string,
  watcher: Watcher | undefined,
): ((err: number) => void) | undefined {
  if (!watcher) return undefined;
  return (err: number) => {
    if (err === ErrorCode.OK) session.watches.add(kind, path, watcher);
  };
}

export function watch(
  core: ClientCore,
  path: string,
  options: PersistentWatchOptions,
): PersistentWatchIterator {
  const { session, paths } = core;
  validatePath(path);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw makeError('BADARGUMENTS', 'signal must be an AbortSignal', {
      path,
      op: 'watch',
    });
  }
  const recursive = options.recursive ?? false;
  return new PersistentWatch(path, recursive, options.signal, {
    registry: session.watches,
    add: (onReply) =>
      session.submit(
        codecs.addWatch,
        {
          path: paths.toServer(path),
          mode: recursive ? AddWatchModeCode.PERSISTENT_RECURSIVE : AddWatchModeCode.PERSISTENT,
        },
        { path, op: 'addWatch', onReply, onAbandonedReply: onReply },
      ),
    remove: () => removeServerWatch(core, path, WatcherTypeCode.Any),
  });
}

export async function removeWatches(
  { session, paths }: ClientCore,
  path: string,
  kind: WatcherKind,
  options: RemoveWatchesOptions,
): Promise<void> {
  validatePath(path);
  const codes: Record<WatcherKind, number> = {
    children: WatcherTypeCode.Children,
    data: WatcherTypeCode.Data,
    any: WatcherTypeCode.Any,
    persistent: WatcherTypeCode.Persistent,
    persistentRecursive: WatcherTypeCode.PersistentRecursive,
  };
  const type = codes[kind];
  if (type === undefined) {
    throw makeError('BADARGUMENTS', `unknown watcher kind "${String(kind)}"`, {
      path,
      op: 'removeWatches',
    });
  }
  const oneShotKinds: OneShotKind[] =
    kind === 'children'
      ? ['child']
      : kind === 'data'
        ? ['data', 'exist']
        : kind === 'any'
          ? ['data', 'exist', 'child']
          : [];
  const persistentModes =
    kind === 'persistent'
      ? [false]
      : kind === 'persistentRecursive'
        ? [true]
        : kind === 'any'
          ? [false, true]
          : [];
  const removeLocally = () => {
    const removed = session.watches.removeOneShot(path, oneShotKinds);
    const ended = persistentModes.map((recursive) =>
      session.watches.removeAllPersistent(path, recursive),
    );
    return removed || ended.some(Boolean);
  };
  try {
    await session.submit(
      codecs.removeWatches,
      { path: paths.toServer(path), type },
      { path, op: 'removeWatches' },
    );
  } catch (error) {
    if (options.local && removeLocally()) return;
    throw error;
  }
  removeLocally();
}

async function removeServerWatch(
  { session, paths }: ClientCore,
  path: string,
  type: number,
): Promise<void> {
  // One server entry serves every local listener of the path: keep it while any remain.
  const watches = session.watches;
  if (
    watches.isAdding(path) ||
    watches.hasPersistent(path, false) ||
    watches.hasPersistent(path, true) ||
    watches.hasOneShot('data', path) ||
    watches.hasOneShot('exist', path) ||
    watches.hasOneShot('child', path)
  ) {
    return;
  }
  try {
    // 'Any' because 3.8 servers know no persistent watcher types; the check above makes it exact.
    await session.submit(
      codecs.removeWatches,
      { path: paths.toServer(path), type },
      { path, op: 'removeWatches' },
    );
  } catch {
    // Best effort: gone already (NOWATCHER), or the session ended and took it along.
  }
}
