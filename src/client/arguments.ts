// Checks of user arguments, done before anything is sent: a wrong type or value becomes a clear
// BADARGUMENTS (or INVALIDACL) error naming the path and operation, never a crash or a bad frame.
import { makeError } from '../protocol/errors.js';
import type { ACL, Watcher } from './types.js';

/** Versions are int32 on the wire; -1 means "any version". */
const MAX_VERSION = 0x7fff_ffff;

export function checkVersion(version: unknown, path: string, op: string): number {
  if (!Number.isInteger(version) || (version as number) < -1 || (version as number) > MAX_VERSION) {
    throw makeError('BADARGUMENTS', `version must be an integer >= -1, got ${String(version)}`, {
      path,
      op,
    });
  }
  return version as number;
}

export function checkWatcher(watch: unknown, path: string, op: string): Watcher | undefined {
  if (watch === undefined) return undefined;
  if (typeof watch !== 'function') {
    throw makeError('BADARGUMENTS', 'watch must be a function (event) => void', {
      path,
      op,
    });
  }
  return watch as Watcher;
}

export function checkOptions(options: unknown, path: string, op: string): void {
  if (typeof options !== 'object' || options === null)
    throw makeError('BADARGUMENTS', 'options must be an object', { path, op });
}

export function checkAcl(acl: unknown, path: string, op: string): ACL[] {
  if (!Array.isArray(acl) || acl.length === 0) {
    throw makeError('INVALIDACL', 'an ACL list must have at least one entry', {
      path,
      op,
    });
  }
  for (const entry of acl as unknown[]) {
    const id = (entry as { id?: unknown } | null)?.id;
    if (typeof entry !== 'object' || entry === null || typeof id !== 'object' || id === null)
      throw makeError('INVALIDACL', 'an ACL entry must be { perms, id: { scheme, id } }', {
        path,
        op,
      });
  }
  return acl.map((entry: ACL) => ({
    perms: entry.perms,
    id: { scheme: entry.id.scheme, id: entry.id.id },
  }));
}
