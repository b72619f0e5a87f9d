// multi() and multiRead(): the public ops checked and mapped to wire records, sent in one
// request, and the results mapped back (a failed multi rejects with every op's result).
import { codecs } from '../protocol/codecs.js';
import { ErrorCode, errorCodeName, errorFromCode, makeError } from '../protocol/errors.js';
import type { MultiOp, MultiReadOp, MultiResult } from '../protocol/multi.js';
import { validatePath } from '../protocol/paths.js';
import { toBytes } from './bytes.js';
import type { ClientCore } from './core.js';
import { createRequest } from './create-request.js';
import type { Op, OpResult, ReadOp } from './multi.js';
import type { Paths } from './paths.js';
import { toStat } from './stat.js';
import { type CallOptions, CreateMode } from './types.js';

/** Atomic: all ops apply or none. On failure rejects with the first failing op's code and `results`. */
export async function multi(
  { session, paths }: ClientCore,
  ops: readonly Op[],
  options: CallOptions,
): Promise<OpResult[]> {
  if (!Array.isArray(ops))
    throw makeError('BADARGUMENTS', 'multi takes an array of Op', { op: 'multi' });
  if (ops.length === 0) return [];
  const request = { ops: ops.map((op) => toMultiOp(paths, op)) };
  const reply = await session.submit(codecs.multi, request, {
    op: 'multi',
    signal: options.signal ?? options.stop,
  });
  const results = reply.map((result) => fromMultiResult(paths, result));
  const failed = results.findIndex(
    (result) => result.type === 'error' && result.errno !== ErrorCode.OK,
  );
  if (failed >= 0) {
    const failure = results[failed] as { code: string; errno: number };
    const path = ops[failed]?.path;
    const error = errorFromCode(failure.errno, {
      message: `${failure.code}: multi failed at op ${failed} (${ops[failed]?.type} ${path}); nothing was applied`,
      path,
      op: 'multi',
    });
    error.results = results;
    throw error;
  }
  return results;
}

/** Several reads in one round trip; each succeeds or fails on its own (not atomic). */
export async function multiRead(
  { session, paths }: ClientCore,
  ops: readonly ReadOp[],
  options: CallOptions,
): Promise<OpResult[]> {
  if (!Array.isArray(ops))
    throw makeError('BADARGUMENTS', 'multiRead takes an array of Op', {
      op: 'multiRead',
    });
  if (ops.length === 0) return [];
  const request = { ops: ops.map((op) => toMultiReadOp(paths, op)) };
  const reply = await session.submit(codecs.multiRead, request, {
    op: 'multiRead',
    signal: options.signal ?? options.stop,
  });
  return reply.map((result) => fromMultiResult(paths, result));
}

function checkOp(op: unknown, name: string): void {
  if (typeof op !== 'object' || op === null)
    throw makeError(
      'BADARGUMENTS',
      `${name} takes Op objects, got ${op === null ? 'null' : typeof op}`,
      { op: name },
    );
}

function toMultiOp(paths: Paths, op: Op): MultiOp {
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

function toMultiReadOp(paths: Paths, op: ReadOp): MultiReadOp {
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

function fromMultiResult(paths: Paths, result: MultiResult): OpResult {
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
