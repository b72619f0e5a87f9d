// The operations that change a node: create (and create2), delete, setData, setACL. Arguments are
// checked and paths mapped through the chroot before anything is sent.
import { codecs } from '../protocol/codecs.js';
import { makeError } from '../protocol/errors.js';
import { validatePath } from '../protocol/paths.js';
import type { SubmitDetails } from '../session/session.js';
import { checkAcl, checkVersion } from './arguments.js';
import { toBytes } from './bytes.js';
import type { ClientCore } from './core.js';
import { createRequest } from './create-request.js';
import { toStat } from './stat.js';
import {
  type ACL,
  type CallOptions,
  CreateMode,
  type CreateOptions,
  type Data,
  type Stat,
} from './types.js';

/** create and create2 in one: the reply of `create` carries no Stat. */
export async function createNode(
  { session, paths }: ClientCore,
  path: string,
  data: Data | undefined,
  options: CreateOptions & CallOptions,
  op: 'create' | 'create2',
): Promise<{ path: string; stat?: Stat }> {
  const { mode, withTtl, request } = createRequest(paths, path, data, options, op);
  const details: SubmitDetails = { path, op, signal: options.signal };
  if (withTtl) {
    const reply = await session.submit(codecs.createTTL, request, details);
    return { path: paths.fromServer(reply.path), stat: toStat(reply.stat) };
  }
  // The plain create codecs write only their own fields: the unused ttl goes nowhere.
  if (mode === CreateMode.CONTAINER) {
    const reply = await session.submit(codecs.createContainer, request, details);
    return { path: paths.fromServer(reply.path), stat: toStat(reply.stat) };
  }
  if (op === 'create') {
    const reply = await session.submit(codecs.create, request, details);
    return { path: paths.fromServer(reply.path) };
  }
  const reply = await session.submit(codecs.create2, request, details);
  return { path: paths.fromServer(reply.path), stat: toStat(reply.stat) };
}

export async function deleteNode(
  { session, paths }: ClientCore,
  path: string,
  version: number,
  options: CallOptions,
): Promise<void> {
  validatePath(path);
  checkVersion(version, path, 'delete');
  if (path === '/' && paths.chroot !== '') {
    // As the Java client: the chroot itself cannot be deleted through the chrooted client.
    throw makeError('BADARGUMENTS', 'cannot delete the chroot through a chrooted client', {
      path,
      op: 'delete',
    });
  }
  await session.submit(
    codecs.delete,
    { path: paths.toServer(path), version },
    { path, op: 'delete', signal: options.signal },
  );
}

export async function setData(
  { session, paths }: ClientCore,
  path: string,
  data: Data,
  version: number,
  options: CallOptions,
): Promise<Stat> {
  validatePath(path);
  checkVersion(version, path, 'setData');
  const reply = await session.submit(
    codecs.setData,
    { path: paths.toServer(path), data: toBytes(data, path, 'setData'), version },
    { path, op: 'setData', signal: options.signal },
  );
  return toStat(reply.stat);
}

export async function setACL(
  { session, paths }: ClientCore,
  path: string,
  acl: readonly ACL[],
  version: number,
  options: CallOptions,
): Promise<Stat> {
  validatePath(path);
  checkVersion(version, path, 'setACL');
  const reply = await session.submit(
    codecs.setACL,
    { path: paths.toServer(path), acl: checkAcl(acl, path, 'setACL'), version },
    { path, op: 'setACL', signal: options.signal },
  );
  return toStat(reply.stat);
}
