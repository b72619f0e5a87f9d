// The public shapes of multi() and multiRead(): the ops, their builders and their results.
// Turning them into wire records and sending them is transactions.ts.
import type { CreateOptions, Data, Stat } from './types.js';

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
