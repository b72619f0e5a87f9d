import { describe, expect, it } from 'vitest';
import { ZooKeeperError } from '../../../src/protocol/errors.js';
import {
  joinChroot,
  joinPath,
  nodeName,
  normalizePath,
  parentPath,
  pathProblem,
  splitPath,
  stripChroot,
  validatePath,
} from '../../../src/protocol/paths.js';
import { thrown } from '../../support/thrown.js';

// [path, expected problem or null] — reasons and '@' indexes as in Java's PathUtils.
const cases: [string, string | null][] = [
  // valid
  ['/', null],
  ['/a', null],
  ['/a/b/c', null],
  ['/zookeeper/quota', null],
  ['/.a', null],
  ['/a.', null],
  ['/...', null],
  ['/a/.b/c..', null],
  ['/a b', null],
  ['/ünï-€', null],
  ['/\u00a0', null], // just above the C1 range
  ['/\uf900', null], // just above the private-use area
  ['/\uffef', null], // just below the forbidden specials
  ['/\u007e', null],
  // rule 1: empty
  ['', 'path length must be > 0'],
  // rule 2: must start with /
  ['a', 'path must start with / character'],
  ['a/b', 'path must start with / character'],
  [' /a', 'path must start with / character'],
  // rule 3: no trailing / except the root
  ['/a/', 'path must not end with / character'],
  ['//', 'path must not end with / character'],
  // rule 4: empty segment
  ['//a', 'empty node name specified @1'],
  ['/a//b', 'empty node name specified @3'],
  // rule 5: . and .. segments
  ['/.', 'relative paths not allowed @1'],
  ['/..', 'relative paths not allowed @2'],
  ['/a/./b', 'relative paths not allowed @3'],
  ['/a/../b', 'relative paths not allowed @4'],
  ['/a/.', 'relative paths not allowed @3'],
  ['/a/..', 'relative paths not allowed @4'],
  // rule 6: NUL
  ['/a\u0000b', 'null character not allowed @2'],
  ['/\u0000', 'null character not allowed @1'],
  // rule 7: forbidden characters
  ['/a\u0001', 'invalid character @2'],
  ['/\u001f', 'invalid character @1'],
  ['/\u007f', 'invalid character @1'],
  ['/\u009f', 'invalid character @1'],
  ['/\ud800', 'invalid character @1'],
  ['/😀', 'invalid character @1'], // non-BMP: a surrogate pair
  ['/\ue000', 'invalid character @1'], // private use
  ['/\uf8ff', 'invalid character @1'],
  ['/\ufff0', 'invalid character @1'],
  ['/\uffff', 'invalid character @1'],
  ['/ok/\n', 'invalid character @4'],
];

describe('pathProblem / validatePath (PathUtils.validatePath)', () => {
  for (const [path, problem] of cases) {
    it(`${JSON.stringify(path)} -> ${problem ?? 'valid'}`, () => {
      expect(pathProblem(path)).toBe(problem);
      if (problem === null) {
        expect(() => validatePath(path)).not.toThrow();
      } else {
        const caught = thrown(() => validatePath(path));
        expect(caught).toBeInstanceOf(ZooKeeperError);
        const err = caught as ZooKeeperError;
        expect(err.code).toBe('BADARGUMENTS');
        expect(err.errno).toBe(-8);
        expect(err.path).toBe(path);
        expect(err.message).toBe(`invalid path "${path}": ${problem}`);
      }
    });
  }

  it('validates sequential paths as path + "1"', () => {
    expect(pathProblem('/a/', true)).toBeNull(); // trailing '/' is fine for sequential
    expect(pathProblem('/', true)).toBeNull();
    expect(pathProblem('/lock-', true)).toBeNull();
    expect(pathProblem('/a/', false)).toBe('path must not end with / character');
    expect(pathProblem('/a//', true)).toBe('empty node name specified @3');
    expect(pathProblem('', true)).toBe('path must start with / character');
    expect(pathProblem('/a/.', true)).toBeNull(); // '/a/.1' is a legal name
    expect(() => validatePath('/x/', true)).not.toThrow();
    expect(() => validatePath('x', true)).toThrow(
      'invalid path "x": path must start with / character',
    );
  });
});

describe('chroot', () => {
  // [chroot, the path given, the path expected]: joining a client path onto the chroot, and
  // stripping the chroot from a server path (chroot + "/" only).
  const cases = {
    join: [
      ['/app', '/', '/app'],
      ['/app', '/a', '/app/a'],
      ['/app/x', '/a/b', '/app/x/a/b'],
      ['', '/a', '/a'],
      ['', '/', '/'],
      ['/', '/a', '/a'],
    ],
    strip: [
      ['/app', '/app', '/'],
      ['/app', '/app/a', '/a'],
      ['/app', '/app/a/b', '/a/b'],
      ['/app', '/apple', '/apple'],
      ['/app', '/apple/x', '/apple/x'],
      ['/app', '/zookeeper/config', '/zookeeper/config'],
      ['/app', '/other', '/other'],
      ['', '/app/a', '/app/a'],
      ['/', '/a', '/a'],
    ],
  } as const;
  const apply = { join: joinChroot, strip: stripChroot };

  for (const [op, title] of [
    ['join', 'joins client paths onto the chroot'],
    ['strip', 'strips the chroot from server paths, matching chroot + "/" only'],
  ] as const) {
    it(title, () => {
      for (const [chroot, path, expected] of cases[op]) {
        expect(apply[op](chroot, path), `${op} ${path} with ${chroot}`).toBe(expected);
      }
    });
  }

  it('round-trips join then strip', () => {
    for (const chroot of ['', '/app', '/a/b/c']) {
      for (const path of ['/', '/x', '/x/y', '/app', '/apple']) {
        expect(stripChroot(chroot, joinChroot(chroot, path))).toBe(path);
      }
    }
  });
});

describe('public path helpers', () => {
  it('joinPath joins with one slash, absolute, whatever slashes the parts carry', () => {
    expect(joinPath()).toBe('/');
    expect(joinPath('/')).toBe('/');
    expect(joinPath('', '/', '//')).toBe('/');
    expect(joinPath('/services', 'api')).toBe('/services/api');
    expect(joinPath('/services/', '/api', 'node-1')).toBe('/services/api/node-1');
    expect(joinPath('services', 'api/v1/', '', 'x')).toBe('/services/api/v1/x');
    expect(joinPath('/', 'a')).toBe('/a');
    expect(joinPath('//a//', '//b')).toBe('/a/b');
  });

  it('normalizePath gives the one canonical form and refuses relative segments', () => {
    expect(normalizePath('/')).toBe('/');
    expect(normalizePath('')).toBe('/');
    expect(normalizePath('a//b/')).toBe('/a/b');
    expect(normalizePath('/a/b')).toBe('/a/b');
    expect(normalizePath('/.a/b..')).toBe('/.a/b..');
    for (const relative of ['/a/./b', '/a/..', '../a', '.']) {
      expect(() => normalizePath(relative)).toThrow(/relative paths not allowed/);
      const error = (() => {
        try {
          normalizePath(relative);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ZooKeeperError);
      expect(error).toMatchObject({ code: 'BADARGUMENTS', path: relative });
    }
    // Whatever normalizePath returns from a name-only input is valid.
    expect(pathProblem(normalizePath('x//y'))).toBeNull();
  });

  it('parentPath, nodeName and splitPath take a path apart', () => {
    expect(parentPath('/a/b/c')).toBe('/a/b');
    expect(parentPath('/a')).toBe('/');
    expect(parentPath('/')).toBe('/');
    expect(nodeName('/a/b/c')).toBe('c');
    expect(nodeName('/a')).toBe('a');
    expect(nodeName('/')).toBe('');
    expect(splitPath('/a/b/c')).toEqual(['a', 'b', 'c']);
    expect(splitPath('/')).toEqual([]);
    expect(splitPath('//a//b/')).toEqual(['a', 'b']);
    // The parts put back together are the path again.
    for (const path of ['/', '/a', '/a/b/c', '/_c_0f-lock-0000000001']) {
      expect(joinPath(...splitPath(path))).toBe(path);
      expect(joinPath(parentPath(path), nodeName(path))).toBe(path);
    }
  });

  it('are the ones the root entry point exports', async () => {
    const root = await import('../../../src/index.js');
    expect(root.joinPath).toBe(joinPath);
    expect(root.normalizePath).toBe(normalizePath);
    expect(root.parentPath).toBe(parentPath);
    expect(root.nodeName).toBe(nodeName);
    expect(root.splitPath).toBe(splitPath);
    expect(root.validatePath).toBe(validatePath);
    expect(root.pathProblem).toBe(pathProblem);
  });
});
