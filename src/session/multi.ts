// Public builders for multi() and multiRead(), and the mapping of their results.

import { errorCodeName, makeError } from '../protocol/errors.js';
import type { MultiOp, MultiReadOp, MultiResult } from '../protocol/multi.js';
import { validatePath } from '../protocol/paths.js';
import { checkAcl } from './arguments.js';
import { toBytes } from './bytes.js';
import type { Paths } from './paths.js';
import { toStat } from './stat.js';
import { CreateMode, type CreateOptions, type Data, Ids, type Stat } from './types.js';

/** One operation of a {@link Client.multi} transaction; build it with the {@link Op} helpers. */
export type Op =
  | {
      /** Create a node. */
      readonly type: 'create';
      /** Path of the node. */
      readonly path: string;
      /** Its data (none: empty). */
      readonly data: Data | undefined;
      /** Mode, ACL and TTL, as for {@link Client.create}. */
      readonly options: CreateOptions;
    }
  | {
      /** Delete a node. */
      readonly type: 'delete';
      /** Path of the node. */
      readonly path: string;
      /** Expected version (-1: any). */
      readonly version: number;
    }
  | {
      /** Replace a node's data. */
      readonly type: 'setData';
      /** Path of the node. */
      readonly path: string;
      /** The new data. */
      readonly data: Data;
      /** Expected version (-1: any). */
      readonly version: number;
    }
  | {
      /** Only check a node's version: the transaction fails if it differs. */
      readonly type: 'check';
      /** Path of the node. */
      readonly path: string;
      /** Expected version. */
      readonly version: number;
    };

/** One read of a {@link Client.multiRead} batch; build it with {@link Op.getData} or {@link Op.getChildren}. */
export type ReadOp =
  | {
      /** Read a node's data. */
      readonly type: 'getData';
      /** Path of the node. */
      readonly path: string;
    }
  | {
      /** List a node's children. */
      readonly type: 'getChildren';
      /** Path of the node. */
      readonly path: string;
    };

/** The result of one op of a multi or multiRead, in the order of the ops. */
export type OpResult =
  | {
      /** A create succeeded. */
      type: 'create';
      /** The actual path of the new node. */
      path: string;
      /** Its metadata (for modes whose reply carries it). */
      stat?: Stat;
    }
  | {
      /** A delete succeeded. */
      type: 'delete';
    }
  | {
      /** A setData succeeded. */
      type: 'setData';
      /** The node's new metadata. */
      stat: Stat;
    }
  | {
      /** A check passed. */
      type: 'check';
    }
  | {
      /** A getData succeeded. */
      type: 'getData';
      /** The node's data. */
      data: Uint8Array;
      /** The node's metadata. */
      stat: Stat;
    }
  | {
      /** A getChildren succeeded. */
      type: 'getChildren';
      /** The names of the children. */
      children: string[];
    }
  | {
      /** The op failed. */
      type: 'error';
      /** The Java KeeperException.Code name (`'NONODE'`, ...). */
      code: string;
      /** The numeric code. */
      errno: number;
    };

/** Builders of the ops for {@link Client.multi} and {@link Client.multiRead}. */
export const Op = {
  /** Create `path` with `data` (mode, ACL, TTL in `options`). */
  create(path: string, data?: Data, options: CreateOptions = {}): Op {
    return { type: 'create', path, data, options };
  },
  /** Delete `path` if its version is `version` (-1: any). */
  delete(path: string, version = -1): Op {
    return { type: 'delete', path, version };
  },
  /** Replace the data of `path` if its version is `version` (-1: any). */
  setData(path: string, data: Data, version = -1): Op {
    return { type: 'setData', path, data, version };
  },
  /** Fail the transaction unless `path` has version `version`. */
  check(path: string, version: number): Op {
    return { type: 'check', path, version };
  },
  /** Read the data of `path` (multiRead). */
  getData(path: string): ReadOp {
    return { type: 'getData', path };
  },
  /** List the children of `path` (multiRead). */
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
