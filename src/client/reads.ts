// The operations that read: node data, children, ACL and metadata (with an optional one-shot
// watch), and the session queries (sync, ephemerals, descendant count, whoAmI).
import { type Codec, codecs, type RequestOf, type ResponseOf } from '../protocol/codecs.js';
import { ErrorCode, makeError, ZooKeeperError } from '../protocol/errors.js';
import { validatePath } from '../protocol/paths.js';
import type { OneShotKind } from '../session/watches.js';
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
        signal: options.signal ?? options.stop,
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

/**
 * getData, getChildren and getChildren2: a path read that may set a one-shot watch of `kind`,
 * registered once the server has answered OK; resolves with `shape(reply)`.
 */
function watchedRead<Res, Out>(
  core: ClientCore,
  codec: Codec<RequestOf<'getData'>, Res>,
  kind: OneShotKind,
  path: string,
  options: WatchOptions & CallOptions,
  shape: (reply: Res) => Out,
): Promise<Out> {
  try {
    const { session, paths } = core;
    const op = codec.name;
    validatePath(path);
    checkOptions(options, path, op);
    const watcher = checkWatcher(options.watch, path, op);
    return session.submit(
      codec,
      { path: paths.toServer(path), watch: watcher !== undefined },
      {
        path,
        op,
        signal: options.signal ?? options.stop,
        onReply: watchOnSuccess(core, kind, path, watcher),
      },
      shape,
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

const dataAndStat = (reply: ResponseOf<'getData'>): { data: Uint8Array; stat: Stat } => ({
  data: reply.data ?? new Uint8Array(0),
  stat: toStat(reply.stat),
});

export function getData(
  core: ClientCore,
  path: string,
  options: WatchOptions & CallOptions,
): Promise<{ data: Uint8Array; stat: Stat }> {
  return watchedRead(core, codecs.getData, 'data', path, options, dataAndStat);
}

const childrenOf = (reply: ResponseOf<'getChildren'>): string[] => reply.children;

export function getChildren(
  core: ClientCore,
  path: string,
  options: WatchOptions & CallOptions,
): Promise<string[]> {
  return watchedRead(core, codecs.getChildren, 'child', path, options, childrenOf);
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
  return watchedRead(core, codecs.getChildren2, 'child', path, options, childrenAndStat);
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
      { path, op: 'getACL', signal: options.signal ?? options.stop },
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
    { path, op: 'sync', signal: options.signal ?? options.stop },
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
    { path: prefix, op: 'getEphemerals', signal: options.signal ?? options.stop },
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
    { path, op: 'getAllChildrenNumber', signal: options.signal ?? options.stop },
  );
  return reply.totalNumber;
}

export async function whoAmI({ session }: ClientCore, options: CallOptions): Promise<ClientInfo[]> {
  const reply = await session.submit(codecs.whoAmI, undefined, {
    op: 'whoAmI',
    signal: options.signal ?? options.stop,
  });
  return reply.clientInfo;
}
