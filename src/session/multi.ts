// Public builders for multi() and multiRead(), and the mapping of their results.

import { errorCodeName, makeError } from '../protocol/errors.js';
import type { MultiOp, MultiReadOp, MultiResult } from '../protocol/multi.js';
import { validatePath } from '../protocol/paths.js';
import { checkAcl } from './arguments.js';
import { toBytes } from './bytes.js';
import type { Paths } from './paths.js';
import { toStat } from './stat.js';
import { CreateMode, type CreateOptions, type Data, Ids, type Stat } from './types.js';

export type Op =
  | {
      readonly type: 'create';
      readonly path: string;
      readonly data: Data | undefined;
      readonly options: CreateOptions;
    }
  | { readonly type: 'delete'; readonly path: string; readonly version: number }
  | {
      readonly type: 'setData';
      readonly path: string;
      readonly data: Data;
      readonly version: number;
    }
  | { readonly type: 'check'; readonly path: string; readonly version: number };

export type ReadOp =
  | { readonly type: 'getData'; readonly path: string }
  | { readonly type: 'getChildren'; readonly path: string };

export type OpResult =
  | { type: 'create'; path: string; stat?: Stat }
  | { type: 'delete' }
  | { type: 'setData'; stat: Stat }
  | { type: 'check' }
  | { type: 'getData'; data: Uint8Array; stat: Stat }
  | { type: 'getChildren'; children: string[] }
  /** A failed op: `code` is the Java KeeperException.Code name. */
  | { type: 'error'; code: string; errno: number };

export const Op = {
  create(path: string, data?: Data, options: CreateOptions = {}): Op {
    return { type: 'create', path, data, options };
  },
  delete(path: string, version = -1): Op {
    return { type: 'delete', path, version };
  },
  setData(path: string, data: Data, version = -1): Op {
    return { type: 'setData', path, data, version };
  },
  check(path: string, version: number): Op {
    return { type: 'check', path, version };
  },
  getData(path: string): ReadOp {
    return { type: 'getData', path };
  },
  getChildren(path: string): ReadOp {
    return { type: 'getChildren', path };
  },
} as const;

export function isSequential(mode: number): boolean {
  return mode === 2 || mode === 3 || mode === 6;
}

/** Builds the wire form of a create, checking mode, TTL, ACL and path first. */
export function createRequest(
  paths: Paths,
  path: string,
  data: Data | undefined,
  options: CreateOptions,
  op: string,
) {
  if (typeof options !== 'object' || options === null)
    throw makeError('BADARGUMENTS', 'options must be an object', { path, op });
  const mode = options.mode ?? CreateMode.PERSISTENT;
  if (!Object.values(CreateMode).includes(mode)) {
    throw makeError('BADARGUMENTS', `unknown create mode ${String(mode)}`, { path, op });
  }
  validatePath(path, isSequential(mode));
  const acl = checkAcl(options.acl ?? Ids.OPEN_ACL_UNSAFE, path, op);
  const withTtl =
    mode === CreateMode.PERSISTENT_WITH_TTL || mode === CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
  const ttl = options.ttl;
  if (withTtl) {
    if (ttl === undefined || !Number.isInteger(ttl) || ttl <= 0 || ttl > 0xffffffffff) {
      throw makeError(
        'BADARGUMENTS',
        `a TTL mode needs ttl in 1..${0xffffffffff} ms, got ${String(ttl)}`,
        { path, op },
      );
    }
  } else if (ttl !== undefined) {
    throw makeError('BADARGUMENTS', 'ttl is only allowed with the *_WITH_TTL modes', {
      path,
      op,
    });
  }
  return {
    mode,
    withTtl,
    request: {
      path: paths.toServer(path),
      data: toBytes(data ?? new Uint8Array(0), path, op),
      acl,
      flags: mode,
      ttl: BigInt(withTtl ? ttl! : -1),
    },
  };
}

function checkOp(op: unknown, name: string): void {
  if (typeof op !== 'object' || op === null)
    throw makeError(
      'BADARGUMENTS',
      `${name} takes Op objects, got ${op === null ? 'null' : typeof op}`,
      { op: name },
    );
}

export function toMultiOp(paths: Paths, op: Op): MultiOp {
  checkOp(op, 'multi');
  switch (op.type) {
    case 'create': {
      const { mode, withTtl, request } = createRequest(
        paths,
        op.path,
        op.data,
        op.options,
        'multi',
      );
      if (withTtl) return { type: 'createTTL', request };
      const { ttl: _ttl, ...plain } = request;
      return {
        type: mode === CreateMode.CONTAINER ? 'createContainer' : 'create2',
        request: plain,
      };
    }
    case 'delete':
      validatePath(op.path);
      return { type: 'delete', request: { path: paths.toServer(op.path), version: op.version } };
    case 'setData':
      validatePath(op.path);
      return {
        type: 'setData',
        request: {
          path: paths.toServer(op.path),
          data: toBytes(op.data, op.path, 'multi'),
          version: op.version,
        },
      };
    case 'check':
      validatePath(op.path);
      return { type: 'check', request: { path: paths.toServer(op.path), version: op.version } };
    default:
      throw makeError('BADARGUMENTS', `unknown multi op ${JSON.stringify(op)}`, {
        op: 'multi',
      });
  }
}

export function toMultiReadOp(paths: Paths, op: ReadOp): MultiReadOp {
  checkOp(op, 'multiRead');
  validatePath(op.path);
  const request = { path: paths.toServer(op.path), watch: false };
  switch (op.type) {
    case 'getData':
      return { type: 'getData', request };
    case 'getChildren':
      return { type: 'getChildren', request };
    default:
      throw makeError('BADARGUMENTS', `unknown multiRead op ${JSON.stringify(op)}`, {
        op: 'multiRead',
      });
  }
}

export function fromMultiResult(paths: Paths, result: MultiResult): OpResult {
  switch (result.type) {
    case 'create':
      return { type: 'create', path: paths.fromServer(result.path) };
    case 'create2':
      return { type: 'create', path: paths.fromServer(result.path), stat: toStat(result.stat) };
    case 'delete':
      return { type: 'delete' };
    case 'setData':
      return { type: 'setData', stat: toStat(result.stat) };
    case 'check':
      return { type: 'check' };
    case 'getData':
      return { type: 'getData', data: result.data ?? new Uint8Array(0), stat: toStat(result.stat) };
    case 'getChildren':
      return { type: 'getChildren', children: result.children };
    case 'error':
      return { type: 'error', code: errorCodeName(result.err), errno: result.err };
  }
}
