// The operations that read: node data, children, ACL and metadata (with an optional one-shot
// watch), and the session queries (sync, ephemerals, descendant count, whoAmI).
import { codecs, type ResponseOf } from '../protocol/codecs.js';
import { ErrorCode, makeError, ZooKeeperError } from '../protocol/errors.js';
import { validatePath } from '../protocol/paths.js';
import { checkOptions, checkWatcher } from './arguments.js';
import type { ClientCore } from './core.js';
import { toStat } from './stat.js';
import type { ACL, CallOptions, ClientInfo, Stat, WatchOptions } from './types.js';
import { watchOnSuccess } from './watching.js';

export async function exists(
  { session, paths }: ClientCore,
  path: string,
  options: WatchOptions & CallOptions,
): Promise<Stat | null> {
  validatePath(path);
  checkOptions(options, path, 'exists');
  const watcher = checkWatcher(options.watch, path, 'exists');
  try {
    const reply = await session.submit(
      codecs.exists,
      { path: paths.toServer(path), watch: watcher !== undefined },
      {
        path,
        op: 'exists',
        signal: options.signal,
        onReply: watcher
          ? (err) => {
              if (err === ErrorCode.OK) session.watches.add('data', path, watcher);
              else if (err === ErrorCode.NONODE) session.watches.add('exist', path, watcher);
            }
          : undefined,
      },
    );
    return toStat(reply.stat);
  } catch (error) {
    if (error instanceof ZooKeeperError && error.code === 'NONODE') return null;
    throw error;
  }
}

// The calls below that only reshape their reply hand the session a shape (no async frame and no
// promise step of their own), and return argument errors as rejections, as an async function would.

const dataAndStat = (reply: ResponseOf<'getData'>): { data: Uint8Array; stat: Stat } => ({
  data: reply.data ?? new Uint8Array(0),
  stat: toStat(reply.stat),
});

export function getData(
  core: ClientCore,
  path: string,
  options: WatchOptions & CallOptions,
): Promise<{ data: Uint8Array; stat: Stat }> {
  try {
    const { session, paths } = core;
    validatePath(path);
    checkOptions(options, path, 'getData');
    const watcher = checkWatcher(options.watch, path, 'getData');
    return session.submit(
      codecs.getData,
      { path: paths.toServer(path), watch: watcher !== undefined },
      {
        path,
        op: 'getData',
        signal: options.signal,
        onReply: watchOnSuccess(core, 'data', path, watcher),
      },
      dataAndStat,
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

const childrenOf = (reply: ResponseOf<'getChildren'>): string[] => reply.children;

export function getChildren(
  core: ClientCore,
  path: string,
  options: WatchOptions & CallOptions,
): Promise<string[]> {
  try {
    const { session, paths } = core;
    validatePath(path);
    checkOptions(options, path, 'getChildren');
    const watcher = checkWatcher(options.watch, path, 'getChildren');
    return session.submit(
      codecs.getChildren,
      { path: paths.toServer(path), watch: watcher !== undefined },
      {
        path,
        op: 'getChildren',
        signal: options.signal,
        onReply: watchOnSuccess(core, 'child', path, watcher),
      },
      childrenOf,
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

const childrenAndStat = (
  reply: ResponseOf<'getChildren2'>,
): { children: string[]; stat: Stat } => ({
  children: reply.children,
  stat: toStat(reply.stat),
});

export function getChildren2(
  core: ClientCore,
  path: string,
  options: WatchOptions & CallOptions,
): Promise<{ children: string[]; stat: Stat }> {
  try {
    const { session, paths } = core;
    validatePath(path);
    checkOptions(options, path, 'getChildren2');
    const watcher = checkWatcher(options.watch, path, 'getChildren2');
    return session.submit(
      codecs.getChildren2,
      { path: paths.toServer(path), watch: watcher !== undefined },
      {
        path,
        op: 'getChildren2',
        signal: options.signal,
        onReply: watchOnSuccess(core, 'child', path, watcher),
      },
      childrenAndStat,
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

const aclAndStat = (reply: ResponseOf<'getACL'>): { acl: ACL[]; stat: Stat } => ({
  acl: reply.acl,
  stat: toStat(reply.stat),
});

export function getACL(
  { session, paths }: ClientCore,
  path: string,
  options: CallOptions,
): Promise<{ acl: ACL[]; stat: Stat }> {
  try {
    validatePath(path);
    return session.submit(
      codecs.getACL,
      { path: paths.toServer(path) },
      { path, op: 'getACL', signal: options.signal },
      aclAndStat,
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

export async function sync(
  { session, paths }: ClientCore,
  path: string,
  options: CallOptions,
): Promise<void> {
  validatePath(path);
  await session.submit(
    codecs.sync,
    { path: paths.toServer(path) },
    { path, op: 'sync', signal: options.signal },
  );
}

export async function getEphemerals(
  { session, paths }: ClientCore,
  prefix: string,
  options: CallOptions,
): Promise<string[]> {
  if (typeof prefix !== 'string' || !prefix.startsWith('/')) {
    throw makeError('BADARGUMENTS', `prefix must start with "/", got ${String(prefix)}`, {
      op: 'getEphemerals',
    });
  }
  const reply = await session.submit(
    codecs.getEphemerals,
    {
      prefixPath: paths.chroot + (prefix === '/' && paths.chroot !== '' ? '/' : prefix),
    },
    { path: prefix, op: 'getEphemerals', signal: options.signal },
  );
  const mine =
    paths.chroot === ''
      ? reply.ephemerals
      : reply.ephemerals.filter((p) => p.startsWith(`${paths.chroot}/`));
  return mine.map((p) => paths.fromServer(p));
}

export async function getAllChildrenNumber(
  { session, paths }: ClientCore,
  path: string,
  options: CallOptions,
): Promise<number> {
  validatePath(path);
  const reply = await session.submit(
    codecs.getAllChildrenNumber,
    { path: paths.toServer(path) },
    { path, op: 'getAllChildrenNumber', signal: options.signal },
  );
  return reply.totalNumber;
}

export async function whoAmI({ session }: ClientCore, options: CallOptions): Promise<ClientInfo[]> {
  const reply = await session.submit(codecs.whoAmI, undefined, {
    op: 'whoAmI',
    signal: options.signal,
  });
  return reply.clientInfo;
}
