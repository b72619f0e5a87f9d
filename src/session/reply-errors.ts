// The error of a failed reply, in words that say what is missing. The server's NONODE names no
// node; the client knows the request's path and its chroot, so it can tell a user which node is
// missing without asking the server again: the parent of a create, or the chroot itself; and a
// delete refused for children says so.
import { ErrorCode, errorFromCode, type ZooKeeperError } from '../protocol/errors.js';

/** The error for `errno` in reply to `op` on `path` (chroot-relative) of a client under `chroot`. */
export function replyError(
  errno: number,
  path: string | undefined,
  op: string,
  chroot: string,
): ZooKeeperError {
  let message: string | undefined;
  if (errno === ErrorCode.NONODE) message = noNodeMessage(path, op, chroot);
  else if (errno === ErrorCode.NOTEMPTY && op === 'delete' && path !== undefined)
    message = `NOTEMPTY: cannot delete ${path}: it has children (${op})`;
  return errorFromCode(errno, { path, op, ...(message === undefined ? {} : { message }) });
}

const CREATES = new Set(['create', 'create2']);

function noNodeMessage(path: string | undefined, op: string, chroot: string): string | undefined {
  if (path === undefined) return undefined;
  if (CREATES.has(op)) {
    // A create fails with NONODE only when its parent is missing.
    const parent = path.slice(0, path.lastIndexOf('/')) || '/';
    const missing =
      parent === '/'
        ? `the chroot ${chroot} does not exist`
        : `its parent ${parent} does not exist`;
    // The root always exists: without a chroot, a top-level create never fails so.
    if (parent === '/' && chroot === '') return undefined;
    return `NONODE: cannot create ${path}: ${missing} (${op})`;
  }
  if (path === '/' && chroot !== '') return `NONODE: the chroot ${chroot} does not exist (${op})`;
  return undefined;
}
