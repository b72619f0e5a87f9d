// The CLI's pure pieces, in process: argument parsing, shell words, ACLs, create modes, output.
import { describe, expect, it } from 'vitest';
import { parseAcl } from '../../../src/cli/acl.js';
import { parseArgs } from '../../../src/cli/args.js';
import { createModeOf } from '../../../src/cli/commands/create.js';
import { formatError, UsageError } from '../../../src/cli/errors.js';
import { serversOf } from '../../../src/cli/four-letter.js';
import { parseLockKind } from '../../../src/cli/lock.js';
import { Output, wantsColor } from '../../../src/cli/output.js';
import { splitWords } from '../../../src/cli/words.js';
import { CreateMode, ZooKeeperError } from '../../../src/index.js';

const specs = [
  { long: 'recursive', short: 'R', help: '' },
  { long: 'long', short: 'l', help: '' },
  { long: 'version', short: 'v', value: 'VERSION', help: '' },
  { long: 'auth', short: 'a', value: 'AUTH', repeat: true, help: '' },
];

describe('parseArgs', () => {
  it('takes GNU-style options anywhere, clustered short flags, values inline or next', () => {
    const parsed = parseArgs(['-Rl', '/a', '--version=3', '-a', 'x', '-ay', 'b'], specs, {
      command: 't',
    });
    expect([...parsed.options]).toEqual([
      ['recursive', true],
      ['long', true],
      ['version', ['3']],
      ['auth', ['x', 'y']],
    ]);
    expect(parsed.positionals).toEqual(['/a', 'b']);
    expect(parsed.rest).toBeUndefined();
  });

  it('keeps "-" and everything after "--" as words; a value may start with a dash', () => {
    const parsed = parseArgs(['-v', '-1', '/a', '-', '--', '-R', '--x'], specs, { command: 't' });
    expect(parsed.options.get('version')).toEqual(['-1']);
    expect(parsed.positionals).toEqual(['/a', '-']);
    expect(parsed.rest).toEqual(['-R', '--x']);
  });

  it('stops at the first word for global options', () => {
    const parsed = parseArgs(['-R', 'ls', '-l'], specs, {
      command: 'zkts',
      stopAtPositional: true,
    });
    expect(parsed.rest).toEqual(['ls', '-l']);
  });

  it('refuses unknown options, missing values, repeats of single options', () => {
    expect(() => parseArgs(['-Z'], specs, { command: 'ls' })).toThrow('unknown option -Z for ls');
    expect(() => parseArgs(['--nope'], specs, { command: 'ls' })).toThrow(UsageError);
    expect(() => parseArgs(['-v'], specs, { command: 'ls' })).toThrow('-v needs a VERSION');
    expect(() => parseArgs(['-v', '1', '-v', '2'], specs, { command: 'ls' })).toThrow(
      'given twice',
    );
    expect(() => parseArgs(['--long=1'], specs, { command: 'ls' })).toThrow('takes no value');
  });
});

describe('splitWords', () => {
  it('splits as zkCli does: quotes group a whole word, and are kept as typed inside a word', () => {
    expect(splitWords(`set /a "two words"  'it is' ""`)).toEqual([
      'set',
      '/a',
      'two words',
      'it is',
      '',
    ]);
    expect(splitWords('create -p /app/config {"debug":false}')).toEqual([
      'create',
      '-p',
      '/app/config',
      '{"debug":false}',
    ]);
    expect(splitWords(`set /a '{"a": "b c"}'`)).toEqual(['set', '/a', '{"a": "b c"}']);
    expect(splitWords(`set /a C:\\dir\\file "x\\y"`)).toEqual([
      'set',
      '/a',
      'C:\\dir\\file',
      'x\\y',
    ]);
    expect(splitWords(`set /a it's`)).toEqual(['set', '/a', "it's"]);
    expect(splitWords('   ')).toEqual([]);
  });

  it('refuses with a hint what zkCli’s rule cannot say, instead of storing something else', () => {
    expect(() => splitWords('get "/a')).toThrow('unterminated " quote');
    expect(() => splitWords(`set /a 'it''s'`)).toThrow(/quoted word must end at its closing quote/);
    expect(() => splitWords(`set /a "say \\"hi\\""`)).toThrow(/zkts set PATH -/);
  });
});

describe('parseAcl', () => {
  it('reads scheme:id:perms lists; ids may hold colons and commas', () => {
    expect(parseAcl('world:anyone:cdrwa,digest:user:abc=:r,ip:10.0.0.0/8:rw,auth::cd')).toEqual([
      { perms: 31, id: { scheme: 'world', id: 'anyone' } },
      { perms: 1, id: { scheme: 'digest', id: 'user:abc=' } },
      { perms: 3, id: { scheme: 'ip', id: '10.0.0.0/8' } },
      { perms: 12, id: { scheme: 'auth', id: '' } },
    ]);
    expect(parseAcl('x509:CN=app,OU=ops,O=acme:a')).toEqual([
      { perms: 16, id: { scheme: 'x509', id: 'CN=app,OU=ops,O=acme' } },
    ]);
  });

  it('refuses bad permissions and malformed entries', () => {
    expect(() => parseAcl('world:anyone:rx')).toThrow('bad permission "x"');
    expect(() => parseAcl('world')).toThrow(UsageError);
    expect(() => parseAcl('')).toThrow(UsageError);
  });
});

describe('create modes', () => {
  const mode = (flags: Partial<Parameters<typeof createModeOf>[0]>) =>
    createModeOf({ ephemeral: false, sequential: false, container: false, ttl: false, ...flags });

  it('maps -e, -s, -c and --ttl to ZooKeeper create modes', () => {
    expect(mode({})).toBe(CreateMode.PERSISTENT);
    expect(mode({ sequential: true })).toBe(CreateMode.PERSISTENT_SEQUENTIAL);
    expect(mode({ ephemeral: true })).toBe(CreateMode.EPHEMERAL);
    expect(mode({ ephemeral: true, sequential: true })).toBe(CreateMode.EPHEMERAL_SEQUENTIAL);
    expect(mode({ container: true })).toBe(CreateMode.CONTAINER);
    expect(mode({ ttl: true })).toBe(CreateMode.PERSISTENT_WITH_TTL);
    expect(mode({ ttl: true, sequential: true })).toBe(CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL);
    expect(() => mode({ ttl: true, ephemeral: true })).toThrow(UsageError);
    expect(() => mode({ container: true, sequential: true })).toThrow(UsageError);
  });
});

describe('lock kinds and servers', () => {
  it('parses --kind', () => {
    expect(parseLockKind('mutex')).toEqual({ type: 'mutex' });
    expect(parseLockKind('semaphore:3')).toEqual({ type: 'semaphore', leases: 3 });
    expect(() => parseLockKind('semaphore:0')).toThrow(UsageError);
    expect(() => parseLockKind('shared')).toThrow(UsageError);
  });

  it('finds the servers of a connect string for four-letter words', () => {
    expect(serversOf('a:1,[::1]:2,b/chroot').map((s) => s.label)).toEqual([
      'a:1',
      '[::1]:2',
      'b:2181',
    ]);
  });
});

describe('output', () => {
  const sink = (isTTY: boolean) => {
    const chunks: string[] = [];
    return {
      chunks,
      stream: { isTTY, write: (c: string | Uint8Array) => chunks.push(String(c)) > 0 },
    };
  };

  it('colours only on a terminal and never with NO_COLOR', () => {
    expect(wantsColor({ isTTY: true, write: () => true }, {})).toBe(true);
    expect(wantsColor({ isTTY: true, write: () => true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColor({ isTTY: false, write: () => true }, {})).toBe(false);
    const { chunks, stream } = sink(true);
    new Output(stream, false, true).line(new Output(stream, false, true).blue('x'));
    expect(chunks.join('')).toBe('\x1b[1;34mx\x1b[0m\n');
  });

  it('aligns tables by visible width (colour codes do not count)', () => {
    const { chunks, stream } = sink(false);
    const out = new Output(stream, false, true);
    out.table(
      [
        [out.blue('a'), '1', 'x'],
        ['long', '100', 'y'],
      ],
      ['left', 'right', 'left'],
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping the colour codes.
    expect(chunks.join('').replace(/\x1b\[[0-9;]*m/g, '')).toBe('a       1  x\nlong  100  y\n');
  });

  it('JSON: one line for pipes, bigints as strings', () => {
    const { chunks, stream } = sink(false);
    new Output(stream, true).emit({ a: 1n, b: [1] });
    expect(chunks.join('')).toBe('{"a":"1","b":[1]}\n');
  });
});

describe('formatError', () => {
  it('shows the ZooKeeper code once and the command instead of the client operation', () => {
    const error = new ZooKeeperError('NONODE', 'NONODE: no node at /a (getData)', {
      path: '/a',
      op: 'getData',
    });
    expect(formatError(error, 'get')).toBe('zkts: NONODE: no node at /a (get)');
    expect(formatError(new UsageError('bad'), 'ls')).toBe('zkts: bad (see zkts ls --help)');
  });
});
