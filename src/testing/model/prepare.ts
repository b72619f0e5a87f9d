// A write request checked against the leader's tree: the change it makes, or the error it earns
// (an error is a transaction too, as on the server). Shared by single writes and multi's ops.
import { ErrorCode } from '../../protocol/errors.js';
import type { MultiResult } from '../../protocol/multi.js';
import { type Change, type DataTree, prepareCreate, type Txn } from './tree.js';

export function single(change: Change): Txn {
  return { kind: 'single', change };
}

/** A write request, checked against the leader's tree: the change and the reply it earns. */
export interface Prepared {
  change: Change;
  err: number;
}

export function prepareDelete(tree: DataTree, path: string, version: number): Change {
  if (path === '/') return { type: 'error', err: ErrorCode.BADARGUMENTS };
  const node = tree.get(path);
  if (!node) return { type: 'error', err: ErrorCode.NONODE };
  if (version !== -1 && node.version !== version)
    return { type: 'error', err: ErrorCode.BADVERSION };
  if (node.children.size > 0) return { type: 'error', err: ErrorCode.NOTEMPTY };
  return { type: 'delete', path };
}

export function prepareSetData(
  tree: DataTree,
  path: string,
  data: Uint8Array,
  version: number,
  time: bigint,
): Change {
  const node = tree.get(path);
  if (!node) return { type: 'error', err: ErrorCode.NONODE };
  if (version !== -1 && node.version !== version)
    return { type: 'error', err: ErrorCode.BADVERSION };
  return { type: 'setData', path, data, time };
}

export function prepareCheck(tree: DataTree, path: string, version: number): Change {
  const node = tree.get(path);
  if (!node) return { type: 'error', err: ErrorCode.NONODE };
  if (version !== -1 && node.version !== version)
    return { type: 'error', err: ErrorCode.BADVERSION };
  return { type: 'check', path };
}

export function prepareCreateChange(
  tree: DataTree,
  path: string,
  data: Uint8Array,
  flags: number,
  sessionId: bigint,
  time: bigint,
  ttl?: number,
): Change {
  // A TTL must fit the 40 bits the server keeps it in (the client checks this too).
  if (ttl !== undefined && !(ttl > 0 && ttl <= MAX_TTL))
    return { type: 'error', err: ErrorCode.BADARGUMENTS };
  const prepared = prepareCreate(tree, path, flags, sessionId, ttl !== undefined);
  if ('err' in prepared) return { type: 'error', err: prepared.err };
  const change: Change = {
    type: 'create',
    path: prepared.path,
    data,
    ephemeralOwner: prepared.ephemeral ? sessionId : 0n,
    container: prepared.container,
    time,
    cversion: !prepared.ephemeral && tree.wrapFrom !== undefined ? tree.wrapFrom : 0,
  };
  if (ttl !== undefined) change.ttl = ttl;
  return change;
}

const MAX_TTL = 0xff_ffff_ffff;

/** The result of one op of a multi that was applied to `tree`. */
export function multiResult(tree: DataTree, op: string, change: Change): MultiResult {
  switch (change.type) {
    case 'create':
      return op === 'create'
        ? { type: 'create', path: change.path }
        : { type: 'create2', path: change.path, stat: tree.stat(tree.get(change.path)!) };
    case 'delete':
      return { type: 'delete' };
    case 'setData':
      return { type: 'setData', stat: tree.stat(tree.get(change.path)!) };
    default:
      return { type: 'check' };
  }
}
