/**
 * Path rules of ZooKeeper's PathUtils.validatePath and chroot
 * handling. Indexes and reasons match the Java messages.
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
 * Why `path` is not a valid ZooKeeper path, or null when it is. For sequential
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

/** Throws ZooKeeperError BADARGUMENTS when `path` is invalid (see pathProblem). */
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
