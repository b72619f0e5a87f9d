// The operations that change a node: create (and create2), delete, setData, setACL. Arguments are
// checked and paths mapped through the chroot before anything is sent.
import { codecs } from '../protocol/codecs.js';
import { makeError } from '../protocol/errors.js';
import { validatePath } from '../protocol/paths.js';
import type { Stat as WireStat } from '../protocol/records.js';
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

/**
 * create and create2 in one: the reply of `create` carries no Stat. Resolves through the
 * session's shape (no async frame of its own); argument errors come back as rejections.
 */
export function createNode(
  { session, paths }: ClientCore,
  path: string,
  data: Data | undefined,
  options: CreateOptions & CallOptions,
  op: 'create' | 'create2',
): Promise<{ path: string; stat?: Stat }> {
  try {
    const { mode, withTtl, request } = createRequest(paths, path, data, options, op);
    const details: SubmitDetails = { path, op, signal: options.signal ?? options.stop };
    const created = (reply: { path: string; stat: WireStat }) => ({
      path: paths.fromServer(reply.path),
      stat: toStat(reply.stat),
    });
    if (withTtl) return session.submit(codecs.createTTL, request, details, created);
    // The plain create codecs write only their own fields: the unused ttl goes nowhere.
    if (mode === CreateMode.CONTAINER) {
      return session.submit(codecs.createContainer, request, details, created);
    }
    if (op === 'create') {
      return session.submit(codecs.create, request, details, (reply) => ({
        path: paths.fromServer(reply.path),
      }));
    }
    return session.submit(codecs.create2, request, details, created);
  } catch (error) {
    return Promise.reject(error);
  }
}

const nothing = (): void => undefined;

export function deleteNode(
  { session, paths }: ClientCore,
  path: string,
  version: number,
  options: CallOptions,
): Promise<void> {
  try {
    validatePath(path);
    checkVersion(version, path, 'delete');
    if (path === '/' && paths.chroot !== '') {
      // As the Java client: the chroot itself cannot be deleted through the chrooted client.
      throw makeError('BADARGUMENTS', 'cannot delete the chroot through a chrooted client', {
        path,
        op: 'delete',
      });
    }
    return session.submit(
      codecs.delete,
      { path: paths.toServer(path), version },
      { path, op: 'delete', signal: options.signal ?? options.stop },
      nothing,
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

const statOf = (reply: { stat: WireStat }): Stat => toStat(reply.stat);

export function setData(
  { session, paths }: ClientCore,
  path: string,
  data: Data,
  version: number,
  options: CallOptions,
): Promise<Stat> {
  try {
    validatePath(path);
    checkVersion(version, path, 'setData');
    return session.submit(
      codecs.setData,
      { path: paths.toServer(path), data: toBytes(data, path, 'setData'), version },
      { path, op: 'setData', signal: options.signal ?? options.stop },
      statOf,
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

export function setACL(
  { session, paths }: ClientCore,
  path: string,
  acl: readonly ACL[],
  version: number,
  options: CallOptions,
): Promise<Stat> {
  try {
    validatePath(path);
    checkVersion(version, path, 'setACL');
    return session.submit(
      codecs.setACL,
      { path: paths.toServer(path), acl: checkAcl(acl, path, 'setACL'), version },
      { path, op: 'setACL', signal: options.signal ?? options.stop },
      statOf,
    );
  } catch (error) {
    return Promise.reject(error);
  }
}
