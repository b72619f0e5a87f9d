// A client's write on its member: forwarded to the leader, checked against the leader's tree
// (multi all or nothing, on a scratch copy), ordered, and answered once the client's own member
// has applied it.
import { ErrorCode } from '../../protocol/errors.js';
import type { MultiResult } from '../../protocol/multi.js';
import { serverCodecs as codecs } from '../wire/server-codecs.js';
import type { Cnxn, Reply } from './cnxn.js';
import {
  multiResult,
  prepareCheck,
  prepareCreateChange,
  prepareDelete,
  prepareSetData,
  single,
} from './prepare.js';
import type { Change, DataTree } from './tree.js';

/** Orders one write (or multi) of `cnxn`'s session; `finish` gets its reply. */
export function proposeWrite(
  cnxn: Cnxn,
  op: string,
  req: Record<string, unknown>,
  finish: (reply: Reply) => void,
  stall?: number,
): void {
  const ens = cnxn.ensemble;
  const session = cnxn.sessionId;
  const time = BigInt(Date.now());
  let results: MultiResult[] = [];
  let change: Change = { type: 'error', err: ErrorCode.UNIMPLEMENTED };
  cnxn.member.forward(() =>
    ens.propose(
      (tree, zxid) => {
        // The session has moved to another member since this request left: refused.
        if (ens.sessions.get(session)?.ownerMember !== cnxn.member.id) {
          change = { type: 'error', err: ErrorCode.SESSIONMOVED };
          results = [];
          if (op === 'multi') return { kind: 'multi', changes: [], failed: true };
          return single(change);
        }
        if (op === 'multi') {
          const ops = (req as { ops: { type: string; request: Record<string, unknown> }[] }).ops;
          const scratch = tree.clone();
          const changes: Change[] = [];
          results = [];
          let failedAt = -1;
          for (const [i, o] of ops.entries()) {
            const c = prepareOne(scratch, o.type, o.request, session, time);
            if (c.type === 'error') {
              failedAt = i;
              results = ops.map((_, j) => ({
                type: 'error' as const,
                err: j < i ? 0 : j === i ? c.err : ErrorCode.RUNTIMEINCONSISTENCY,
              }));
              break;
            }
            scratch.apply(zxid, { kind: 'single', change: c });
            changes.push(c);
            results.push(multiResult(scratch, o.type, c));
          }
          return { kind: 'multi', changes, failed: failedAt >= 0 };
        }
        change = prepareOne(tree, op, req, session, time);
        return single(change);
      },
      {
        cnxn,
        finish: (member) => {
          if (change.type === 'error' && change.err === ErrorCode.SESSIONMOVED) {
            finish({ err: change.err });
            return;
          }
          if (op === 'multi') {
            finish({ err: 0, body: (w) => codecs.multi.writeResponse(w, results) });
            return;
          }
          finish(replyFor(member.tree, op, change));
        },
      },
      stall,
    ),
  );
}

function prepareOne(
  tree: DataTree,
  op: string,
  req: Record<string, unknown>,
  session: bigint,
  time: bigint,
): Change {
  const path = req.path as string;
  switch (op) {
    case 'create':
    case 'create2':
    case 'createContainer': {
      const flags = op === 'createContainer' ? 4 : (req.flags as number);
      if (op !== 'createContainer' && flags === 4)
        return { type: 'error', err: ErrorCode.BADARGUMENTS };
      const data = (req.data as Uint8Array | null) ?? new Uint8Array(0);
      return prepareCreateChange(tree, path, data, flags, session, time);
    }
    case 'createTTL': {
      const data = (req.data as Uint8Array | null) ?? new Uint8Array(0);
      const ttl = Number(req.ttl as bigint);
      return prepareCreateChange(tree, path, data, req.flags as number, session, time, ttl);
    }
    case 'delete':
      return prepareDelete(tree, path, req.version as number);
    case 'setData':
      return prepareSetData(
        tree,
        path,
        (req.data as Uint8Array | null) ?? new Uint8Array(0),
        req.version as number,
        time,
      );
    case 'setACL': {
      const node = tree.get(path);
      if (!node) return { type: 'error', err: ErrorCode.NONODE };
      const version = req.version as number;
      if (version !== -1 && node.aversion !== version)
        return { type: 'error', err: ErrorCode.BADVERSION };
      return { type: 'setACL', path };
    }
    case 'check':
      return prepareCheck(tree, path, req.version as number);
    case 'reconfig':
      return { type: 'error', err: ErrorCode.RECONFIGDISABLED };
    default:
      return { type: 'error', err: ErrorCode.UNIMPLEMENTED };
  }
}

function replyFor(tree: DataTree, op: string, change: Change): Reply {
  if (change.type === 'error') return { err: change.err };
  switch (op) {
    case 'create':
      return {
        err: 0,
        body: (w) => codecs.create.writeResponse(w, { path: (change as { path: string }).path }),
      };
    case 'create2':
    case 'createTTL':
    case 'createContainer': {
      const p = (change as { path: string }).path;
      const stat = tree.stat(tree.get(p)!);
      return { err: 0, body: (w) => codecs.create2.writeResponse(w, { path: p, stat }) };
    }
    case 'setData':
    case 'setACL': {
      const stat = tree.stat(tree.get((change as { path: string }).path)!);
      return { err: 0, body: (w) => codecs.setData.writeResponse(w, { stat }) };
    }
    default:
      return { err: 0 };
  }
}
