/**
 * ZooKeeper paths: the rules of ZooKeeper's PathUtils.validatePath (indexes and reasons match the
 * Java messages), the public helpers that build and take paths apart (Curator's `ZKPaths`,
 * kazoo's `join`/`normpath`/`basename`), and chroot handling. The one home of path rules: the
 * client, the recipes and the CLI all take theirs from here.
 */

import { makeError } from './errors.js';

/** \u0001-\u001F, \u007F-\u009F, \uD800-\uF8FF (surrogates + private use), \uFFF0-\uFFFF. */
function isForbiddenChar(c: number): boolean {
  return (
    (c > 0x0000 && c <= 0x001f) ||
    (c >= 0x007f && c <= 0x009f) ||
    (c >= 0xd800 && c <= 0xf8ff) ||
    (c >= 0xfff0 && c <= 0xffff)
  );
}

const SLASH = 0x2f;
const DOT = 0x2e;
const DIGIT_ONE = 0x31;

/**
 * Why `path` is not a valid ZooKeeper path, or null when it is (the server's rules: absolute, no
 * empty, `.` or `..` segment, no trailing `/`, no control or private-use characters). For sequential
 * creates the server appends a counter, so the path is checked as `path + '1'`
 * (a trailing '/' is then legal).
 */
export function pathProblem(path: string, sequential = false): string | null {
  if (typeof path !== 'string') return 'path must be a string';
  // Checked as `path + '1'` without building that string (this runs on every request).
  const length = sequential ? path.length + 1 : path.length;
  if (length === 0) return 'path length must be > 0';
  if (codeAt(path, 0) !== SLASH) return 'path must start with / character';
  if (length === 1) return null;
  if (codeAt(path, length - 1) === SLASH) return 'path must not end with / character';

  // Walks UTF-16 code units, as Java does, so surrogate halves are caught one by one.
  let last = SLASH;
  for (let i = 1; i < length; i++) {
    const c = codeAt(path, i);
    if (c === 0) return `null character not allowed @${i}`;
    if (c === SLASH) {
      if (last === SLASH) return `empty node name specified @${i}`;
    } else if (c === DOT) {
      const endsSegment = i + 1 === length || codeAt(path, i + 1) === SLASH;
      if (endsSegment && (last === SLASH || (last === DOT && codeAt(path, i - 2) === SLASH))) {
        return `relative paths not allowed @${i}`;
      }
    } else if (isForbiddenChar(c)) {
      return `invalid character @${i}`;
    }
    last = c;
  }
  return null;
}

/** The code unit at `i`, with the '1' a sequential create appends just past the end. */
function codeAt(path: string, i: number): number {
  return i < path.length ? path.charCodeAt(i) : DIGIT_ONE;
}

/**
 * Throws when `path` is not a valid ZooKeeper path, with the reason {@link pathProblem} gives: the
 * same check, and the same error, as every client operation makes before it sends anything.
 * `sequential: true` checks a path given to a sequential create (a trailing `/` is then legal).
 */
export function validatePath(path: string, sequential = false): void {
  const problem = pathProblem(path, sequential);
  if (problem !== null) {
    throw makeError('BADARGUMENTS', `invalid path "${String(path)}": ${problem}`, {
      path,
    });
  }
}

/** '' and '/' both mean "no chroot". */
function hasChroot(chroot: string): boolean {
  return chroot !== '' && chroot !== '/';
}

/** Client path -> server path: '/' becomes the chroot itself, any other path is appended. */
export function joinChroot(chroot: string, path: string): string {
  if (!hasChroot(chroot)) return path;
  return path === '/' ? chroot : chroot + path;
}

/**
 * Server path -> client path. Matches `chroot + '/'` rather than a plain
 * prefix, so chroot '/app' leaves '/apple' alone (the Java client does not).
 * Paths outside the chroot are returned unchanged.
 */
export function stripChroot(chroot: string, serverPath: string): string {
  if (!hasChroot(chroot)) return serverPath;
  if (serverPath === chroot) return '/';
  if (serverPath.startsWith(chroot + '/')) return serverPath.slice(chroot.length);
  return serverPath;
}

// ---- building and taking paths apart ---------------------------------------------------------
// Plain string work: these check nothing (see validatePath) and never throw, except normalizePath,
// which refuses relative segments.

/**
 * The parts joined into one absolute path, one `/` between them (Curator's `ZKPaths.makePath`):
 * slashes at either end of a part are dropped and empty parts skipped, so
 * `joinPath('/services/', '/api', 'node-1')` is `/services/api/node-1` and `joinPath()` is `/`.
 * Slashes inside a part stay as they are (`joinPath('/a', 'b/c')` is `/a/b/c`).
 */
export function joinPath(...parts: string[]): string {
  let path = '';
  for (const part of parts) {
    let start = 0;
    let end = part.length;
    while (start < end && part.charCodeAt(start) === SLASH) start++;
    while (end > start && part.charCodeAt(end - 1) === SLASH) end--;
    if (start < end) path += `/${part.slice(start, end)}`;
  }
  return path === '' ? '/' : path;
}

/**
 * `path` in its one canonical form: a leading `/`, no doubled or trailing `/` (kazoo's `normpath`):
 * `normalizePath('a//b/')` is `/a/b`. A `.` or `..` segment is refused (ZooKeeper has no relative
 * paths), with the same error as {@link validatePath}.
 */
export function normalizePath(path: string): string {
  const segments = splitPath(path);
  for (const segment of segments) {
    if (segment === '.' || segment === '..') {
      throw makeError('BADARGUMENTS', `invalid path "${path}": relative paths not allowed`, {
        path,
      });
    }
  }
  return segments.length === 0 ? '/' : `/${segments.join('/')}`;
}

/**
 * The parent of `path`: `/a` for `/a/b`, `/` for a top-level node, and `/` for the root itself (as
 * POSIX `dirname`). `path` is taken as written: normalize it first if it may end in `/`.
 */
export function parentPath(path: string): string {
  const cut = lastSlash(path);
  return cut <= 0 ? '/' : path.slice(0, cut);
}

/**
 * The node's own name, the last segment of `path` (kazoo's `basename`, Curator's
 * `ZKPaths.getNodeFromPath`): `b` for `/a/b`, `''` for the root.
 */
export function nodeName(path: string): string {
  return path.slice(lastSlash(path) + 1);
}

/**
 * The segments of `path`, root first (Curator's `ZKPaths.split`): `['a', 'b']` for `/a/b`, `[]` for
 * the root. Empty segments (doubled or trailing slashes) are skipped.
 */
export function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

/**
 * The index of the last `/` in `path`, or -1. A plain loop: V8 runs String's lastIndexOf as a call
 * into the runtime, and the lock engine cuts a node's name off its path on every acquisition.
 */
function lastSlash(path: string): number {
  for (let i = path.length - 1; i >= 0; i--) if (path.charCodeAt(i) === SLASH) return i;
  return -1;
}
