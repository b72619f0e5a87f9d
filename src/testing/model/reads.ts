// A client's read on its member, answered from that member's own tree (possibly behind the
// leader), with the watches it sets; SetWatches' catch-up rules; the WORLD_ACL every node has.
import { ErrorCode } from '../../protocol/errors.js';
import type { MultiResult } from '../../protocol/multi.js';
import { serverCodecs as codecs } from '../wire/server-codecs.js';
import type { Cnxn, Reply } from './cnxn.js';
import { hashSetCopyOrder } from './java-order.js';

const WORLD_ACL = [{ perms: 31, id: { scheme: 'world', id: 'anyone' } }];

/** The reply to a read (or a watch request) on `cnxn`'s member, as of now. */
export function answerRead(cnxn: Cnxn, op: string, req: Record<string, unknown>): Reply {
  const tree = cnxn.member.tree;
  const path = req.path as string;
  const watch = req.watch === true;
  const watches = cnxn.member.watches;
  switch (op) {
    case 'exists': {
      const node = tree.get(path);
      if (watch) watches.add('data', path, cnxn, 'std');
      if (!node) return { err: ErrorCode.NONODE };
      return { err: 0, body: (w) => codecs.exists.writeResponse(w, { stat: tree.stat(node) }) };
    }
    case 'getData': {
      const node = tree.get(path);
      if (!node) return { err: ErrorCode.NONODE };
      if (watch) watches.add('data', path, cnxn, 'std');
      const stat = tree.stat(node);
      const data = node.data;
      return { err: 0, body: (w) => codecs.getData.writeResponse(w, { data, stat }) };
    }
    case 'getChildren':
    case 'getChildren2': {
      const node = tree.get(path);
      if (!node) return { err: ErrorCode.NONODE };
      if (watch) watches.add('child', path, cnxn, 'std');
      const children = cnxn.shuffled([...node.children]);
      const stat = tree.stat(node);
      return op === 'getChildren'
        ? { err: 0, body: (w) => codecs.getChildren.writeResponse(w, { children }) }
        : { err: 0, body: (w) => codecs.getChildren2.writeResponse(w, { children, stat }) };
    }
    case 'getACL': {
      const node = tree.get(path);
      if (!node) return { err: ErrorCode.NONODE };
      const stat = tree.stat(node);
      return { err: 0, body: (w) => codecs.getACL.writeResponse(w, { acl: WORLD_ACL, stat }) };
    }
    case 'addWatch': {
      // Both modes go into both tables (a recursive entry in the child table never reports
      // NodeChildrenChanged, but it replaces a one-shot child watch of this connection there).
      const mode = req.mode === 1 ? 'recursive' : 'persistent';
      watches.add('data', path, cnxn, mode);
      watches.add('child', path, cnxn, mode);
      return { err: 0, body: (w) => codecs.addWatch.writeResponse(w, undefined) };
    }
    case 'checkWatches':
    case 'removeWatches': {
      // 3.8 reads only the types 1 to 3 (children, data, any): the persistent kinds of newer
      // clients fail to unmarshal.
      if (req.type !== 1 && req.type !== 2 && req.type !== 3)
        return { err: ErrorCode.MARSHALLINGERROR };
      const tables = req.type === 1 ? ['child'] : req.type === 2 ? ['data'] : ['data', 'child'];
      let found = false;
      for (const table of tables as ('data' | 'child')[]) {
        if (op === 'checkWatches') found ||= watches.has(table, path, cnxn);
        else found = watches.remove(table, path, cnxn) || found;
      }
      return { err: found ? 0 : ErrorCode.NOWATCHER };
    }
    case 'setWatches':
    case 'setWatches2':
      setWatches(cnxn, req as unknown as SetWatchesRequest);
      return { err: 0 };
    case 'multiRead': {
      const ops = (req as { ops: { type: string; request: { path: string } }[] }).ops;
      const results: MultiResult[] = ops.map((o) => {
        const node = tree.get(o.request.path);
        if (!node) return { type: 'error', err: ErrorCode.NONODE };
        return o.type === 'getData'
          ? { type: 'getData', data: node.data, stat: tree.stat(node) }
          : { type: 'getChildren', children: cnxn.shuffled([...node.children]) };
      });
      return { err: 0, body: (w) => codecs.multiRead.writeResponse(w, results) };
    }
    case 'whoAmI': {
      const clientInfo = cnxn.identities.map(({ scheme, user }) => ({ authScheme: scheme, user }));
      return { err: 0, body: (w) => codecs.whoAmI.writeResponse(w, { clientInfo }) };
    }
    case 'getEphemerals': {
      // The server lists a copy of its set of the session's ephemeral paths (a Java HashSet, so
      // in bucket order), keeping those that start with the prefix ('' and '/' keep all).
      const prefix = (req.prefixPath as string) || '/';
      const owned = [...(tree.ephemerals.get(cnxn.sessionId) ?? [])];
      const ephemerals = hashSetCopyOrder(
        owned,
        tree.ephemeralPeak.get(cnxn.sessionId) ?? 0,
      ).filter((p) => prefix === '/' || p.startsWith(prefix));
      return { err: 0, body: (w) => codecs.getEphemerals.writeResponse(w, { ephemerals }) };
    }
    case 'getAllChildrenNumber': {
      const node = tree.get(path);
      if (!node) return { err: ErrorCode.NONODE };
      const totalNumber = tree.descendants(path);
      return {
        err: 0,
        body: (w) => codecs.getAllChildrenNumber.writeResponse(w, { totalNumber }),
      };
    }
    default:
      return { err: ErrorCode.UNIMPLEMENTED };
  }
}

/** SetWatches: catch-up events for what changed since the client's zxid, else re-arm. */
function setWatches(cnxn: Cnxn, req: SetWatchesRequest): void {
  const tree = cnxn.member.tree;
  const watches = cnxn.member.watches;
  const rel = req.relativeZxid;
  for (const path of req.dataWatches) {
    const node = tree.get(path);
    if (!node) cnxn.notify('NodeDeleted', path);
    else if (node.mzxid > rel) cnxn.notify('NodeDataChanged', path);
    else watches.add('data', path, cnxn, 'std');
  }
  for (const path of req.existWatches) {
    if (tree.get(path)) cnxn.notify('NodeCreated', path);
    else watches.add('data', path, cnxn, 'std');
  }
  for (const path of req.childWatches) {
    const node = tree.get(path);
    if (!node) cnxn.notify('NodeDeleted', path);
    else if (node.pzxid > rel) cnxn.notify('NodeChildrenChanged', path);
    else watches.add('child', path, cnxn, 'std');
  }
  for (const path of req.persistentWatches ?? []) {
    watches.add('data', path, cnxn, 'persistent');
    watches.add('child', path, cnxn, 'persistent');
  }
  for (const path of req.persistentRecursiveWatches ?? []) {
    watches.add('data', path, cnxn, 'recursive');
    watches.add('child', path, cnxn, 'recursive');
  }
}

interface SetWatchesRequest {
  relativeZxid: bigint;
  dataWatches: string[];
  existWatches: string[];
  childWatches: string[];
  persistentWatches?: string[];
  persistentRecursiveWatches?: string[];
}
