// Every node command of zkts, end to end: spawned CLI processes against the shared server.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedServer } from '../../harness/index.js';
import { freshChroot, newClient, runCli } from './helpers.js';

const json = (text: string) =>
  JSON.parse(text) as Record<string, unknown> & { stat: Record<string, unknown> };

describe('zkts node commands', () => {
  it('create prints the path created, for every mode; ls lists children', async () => {
    const { servers, root } = await freshChroot();
    const plain = await runCli(['create', '/app', 'hello'], { servers });
    expect(plain).toMatchObject({ code: 0, stdout: '/app\n', stderr: '' });
    const seq = await runCli(['create', '-s', '/app/job-'], { servers });
    expect(seq.stdout).toMatch(/^\/app\/job-\d{10}\n$/);
    expect((await runCli(['create', '-c', '/box'], { servers })).code).toBe(0);
    expect((await runCli(['create', '--ttl', '60000', '/app/ttl'], { servers })).code).toBe(0);
    expect((await runCli(['create', '-e', '/app/eph'], { servers })).code).toBe(0);
    expect((await runCli(['create', '-p', '/deep/er/node', 'x'], { servers })).stdout).toBe(
      '/deep/er/node\n',
    );

    expect((await root.getData('/app')).data).toEqual(new TextEncoder().encode('hello'));
    // The ephemeral went with the CLI's session.
    expect(await root.exists('/app/eph')).toBeNull();
    // (Servers show containers and TTL nodes with ephemeralOwner 0: see parsing.test.ts for modes.)
    expect(await root.exists('/box')).not.toBeNull();
    expect(await root.exists('/app/ttl')).not.toBeNull();
    expect((await root.getData('/deep/er/node')).data).toEqual(new TextEncoder().encode('x'));

    const ls = await runCli(['ls', '/app'], { servers });
    expect(ls.stdout).toBe(`${seq.stdout.trim().slice('/app/'.length)}\nttl\n`);
    expect(json((await runCli(['ls', '--json', '/'], { servers })).stdout)).toEqual({
      path: '/',
      children: ['app', 'box', 'deep'],
    });
  });

  it('ls -l is an aligned table; -R lists the subtree parents first; --json for both', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/a', 'xyz');
    await root.create('/a/b');
    await root.create('/a/b/c');
    await root.setData('/a', '12345');
    const long = await runCli(['ls', '-l', '/'], { servers });
    const [header, row] = long.stdout.trimEnd().split('\n') as [string, string];
    expect(header.split(/\s{2,}/)).toEqual([
      'NAME',
      'VERSION',
      'LENGTH',
      'CHILDREN',
      'MODIFIED (UTC)',
      'EPHEMERAL',
    ]);
    expect(row.split(/\s+/).slice(0, 4)).toEqual(['a', '1', '5', '1']);
    // Aligned: every column starts at the same offset on both lines.
    expect(row.lastIndexOf('-')).toBe(header.indexOf('EPHEMERAL'));
    expect(row.indexOf('1', 1)).toBe(header.indexOf('VERSION') + 'VERSION'.length - 1);

    expect((await runCli(['ls', '-R', '/a'], { servers })).stdout).toBe('/a\n/a/b\n/a/b/c\n');
    const tree = json(
      (await runCli(['ls', '-R', '-l', '--json', '/a'], { servers })).stdout,
    ) as unknown as {
      nodes: { path: string; stat: { numChildren: number; version: number } }[];
    };
    expect(tree.nodes.map((n) => [n.path, n.stat.numChildren])).toEqual([
      ['/a', 1],
      ['/a/b', 1],
      ['/a/b/c', 0],
    ]);
    const children = json(
      (await runCli(['--json', 'ls', '-l', '/a'], { servers })).stdout,
    ) as unknown as {
      children: { name: string; path: string; stat: { czxid: string } }[];
    };
    expect(children.children).toEqual([
      {
        name: 'b',
        path: '/a/b',
        stat: expect.objectContaining({ czxid: expect.stringMatching(/^0x[0-9a-f]+$/) }),
      },
    ]);
  });

  it('get prints the bytes as stored; --hex and --json; set reads stdin with "-"', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/n');
    const binary = Uint8Array.from([0, 1, 2, 0xff, 0xfe, 10]);
    expect((await runCli(['set', '/n', '-'], { servers, input: binary })).code).toBe(0);
    expect(new Uint8Array((await runCli(['get', '/n'], { servers })).bytes)).toEqual(binary);
    expect((await runCli(['get', '--hex', '/n'], { servers })).stdout).toBe('000102fffe0a\n');
    const asJson = json((await runCli(['get', '--json', '/n'], { servers })).stdout);
    expect(asJson).toMatchObject({ path: '/n', data: null, base64: 'AAEC//4K' });
    expect(asJson.stat).toMatchObject({ version: 1, dataLength: 6 });

    await runCli(['set', '/n', 'héllo wörld'], { servers });
    expect((await runCli(['get', '/n'], { servers })).stdout).toBe('héllo wörld');
    expect(json((await runCli(['get', '--json', '/n'], { servers })).stdout).data).toBe(
      'héllo wörld',
    );
  });

  it('set -v and rm -v check the version (BADVERSION, status 5)', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/v', 'a');
    const stale = await runCli(['set', '-v', '3', '/v', 'b'], { servers });
    expect(stale.code).toBe(5);
    expect(stale.stderr).toBe('zkts: BADVERSION: bad version at /v (set)\n');
    const ok = await runCli(['set', '--json', '-v', '0', '/v', 'b'], { servers });
    expect(json(ok.stdout)).toMatchObject({ path: '/v', stat: { version: 1 } });
    expect((await runCli(['rm', '-v', '0', '/v'], { servers })).code).toBe(5);
    expect((await runCli(['rm', '-v', '1', '/v'], { servers })).code).toBe(0);
    expect(await root.exists('/v')).toBeNull();
  });

  it('rm refuses a node with children (NOTEMPTY, 6); rm -R deletes the subtree', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/t');
    for (const name of ['a', 'b', 'c']) {
      await root.create(`/t/${name}`);
      await root.create(`/t/${name}/leaf`);
    }
    const refused = await runCli(['rm', '/t'], { servers });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toBe(
      'zkts: NOTEMPTY: cannot delete /t: it has children; rm -R deletes it with all its descendants (rm)\n',
    );
    const removed = await runCli(['rm', '-R', '--json', '/t'], { servers });
    expect(removed.code).toBe(0);
    expect((json(removed.stdout).deleted as string[]).sort()).toEqual(
      ['/t', '/t/a', '/t/a/leaf', '/t/b', '/t/b/leaf', '/t/c', '/t/c/leaf'].sort(),
    );
    expect(await root.exists('/t')).toBeNull();
    expect((await runCli(['rm', '-R', '/'], { servers })).code).toBe(2);
  });

  it('stat is a name/value table, or JSON with hex zxids', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/s', 'data');
    const human = await runCli(['stat', '/s'], { servers });
    const rows = Object.fromEntries(
      human.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split(/\s+/)),
    );
    expect(rows).toMatchObject({
      version: '0',
      dataLength: '4',
      numChildren: '0',
      ephemeralOwner: '0x0',
    });
    expect(rows.ctime).toMatch(/^\d{4}-\d\d-\d\dT/);
    const stat = (await root.exists('/s'))!;
    expect(json((await runCli(['stat', '--json', '/s'], { servers })).stdout).stat).toEqual({
      czxid: `0x${stat.czxid.toString(16)}`,
      mzxid: `0x${stat.mzxid.toString(16)}`,
      pzxid: `0x${stat.pzxid.toString(16)}`,
      ctime: stat.ctime,
      mtime: stat.mtime,
      version: 0,
      cversion: 0,
      aversion: 0,
      ephemeralOwner: '0x0',
      dataLength: 4,
      numChildren: 0,
    });
  });

  it('a chroot in the connect string roots every path', async () => {
    const { servers, chroot } = await freshChroot();
    await runCli(['create', '/inside', 'x'], { servers });
    const global = await newClient(sharedServer().connectString);
    expect(await global.exists(`${chroot}/inside`)).not.toBeNull();
    expect((await runCli(['ls', '/'], { servers })).stdout).toBe('inside\n');
    // --server wins over ZOOKEEPER_SERVERS.
    const flag = await runCli(['--server', servers, 'ls', '/'], { servers: '127.0.0.1:1' });
    expect(flag.stdout).toBe('inside\n');
  });
});

describe('zkts ACLs and auth', () => {
  it('acl set/get with digest entries; --auth gives access, NOAUTH (7) without', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/secret', 'hidden');
    const digest = await runCli(['digest', 'admin:pw'], { servers });
    expect(digest.stdout).toBe('admin:HyfYpDg4zqvjWwhkAYRiLwvklpU=\n');
    const acl = `world:anyone:r,digest:${digest.stdout.trim()}:cdrwa`;
    expect((await runCli(['acl', 'set', '/secret', acl], { servers })).code).toBe(0);
    // The server masks digest hashes for sessions without ADMIN on the node.
    expect((await runCli(['acl', 'get', '/secret'], { servers })).stdout).toBe(
      'world:anyone:r\ndigest:admin:x:cdrwa\n',
    );
    const asJson = json(
      (await runCli(['-a', 'digest:admin:pw', 'acl', 'get', '--json', '/secret'], { servers }))
        .stdout,
    );
    expect(asJson.acl).toEqual([
      { scheme: 'world', id: 'anyone', perms: 'r' },
      { scheme: 'digest', id: digest.stdout.trim(), perms: 'cdrwa' },
    ]);

    const denied = await runCli(['set', '/secret', 'x'], { servers });
    expect(denied.code).toBe(7);
    expect(denied.stderr).toBe('zkts: NOAUTH: not authenticated at /secret (set)\n');
    const allowed = await runCli(['--auth', 'digest:admin:pw', 'set', '/secret', 'x'], { servers });
    expect(allowed).toMatchObject({ code: 0, stderr: '' });

    const who = await runCli(['-a', 'digest:admin:pw', 'whoami', '--json'], { servers });
    expect(json(who.stdout).identities).toContainEqual({ scheme: 'digest', user: 'admin' });
    expect((await runCli(['auth', 'digest:admin:pw'], { servers })).code).toBe(0);
    const badAcl = await runCli(['acl', 'set', '/secret', 'world:anyone:rx'], { servers });
    expect(badAcl.code).toBe(2);
    expect(badAcl.stderr).toMatch(/^zkts: bad permission "x"/);
  });

  it('create --acl applies the ACL at creation', async () => {
    const { servers, root } = await freshChroot();
    await runCli(['create', '--acl', 'world:anyone:r', '/ro', 'v'], { servers });
    expect((await root.getACL('/ro')).acl).toEqual([
      { perms: 1, id: { scheme: 'world', id: 'anyone' } },
    ]);
    expect((await runCli(['create', '/ro/child'], { servers })).code).toBe(7);
  });
});

describe('zkts session commands and four-letter words', () => {
  it('sync, ephemerals and whoami', async () => {
    const { servers } = await freshChroot();
    await runCli(['create', '/x'], { servers });
    expect(await runCli(['sync', '/x'], { servers })).toMatchObject({ code: 0, stdout: '' });
    expect(json((await runCli(['ephemerals', '--json'], { servers })).stdout)).toEqual({
      prefix: '/',
      ephemerals: [],
    });
    const who = await runCli(['whoami'], { servers });
    expect(who.stdout).toMatch(/^ip\s+127\.0\.0\.1\nsession\s+0x[0-9a-f]+ on 127\.0\.0\.1:\d+\n$/);
  });

  it('srvr and mntr ask each server directly (chroot ignored)', async () => {
    const { servers } = await freshChroot();
    const srvr = await runCli(['srvr'], { servers });
    expect(srvr.code).toBe(0);
    expect(srvr.stdout).toMatch(/^Mode: standalone$/m);
    const mntr = JSON.parse((await runCli(['mntr', '--json'], { servers })).stdout) as {
      server: string;
      fields: Record<string, unknown>;
    }[];
    expect(mntr).toHaveLength(1);
    expect(mntr[0]!.server).toBe(sharedServer().connectString);
    expect(mntr[0]!.fields.zk_server_state).toBe('standalone');
    expect(typeof mntr[0]!.fields.zk_znode_count).toBe('number');
    expect((await runCli(['4lw', 'ruok'], { servers })).stdout).toBe('imok\n');

    const partly = await runCli(
      ['-s', `127.0.0.1:1,${servers}`, '-t', '2000', 'srvr', '--json'],
      {},
    );
    expect(partly.code).toBe(69);
    expect(partly.stderr).toBe('zkts: CONNECTIONLOSS: 127.0.0.1:1: ECONNREFUSED (srvr)\n');
    const answers = JSON.parse(partly.stdout) as { server: string; fields?: { Mode?: string } }[];
    expect(answers.map((a) => a.fields?.Mode)).toEqual([undefined, 'standalone']);
  });
});

describe('zkts errors and exit statuses', () => {
  it('one line on stderr with the ZooKeeper code, and a distinct status', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/here');
    const cases: [string[], number, RegExp][] = [
      [['get', '/a'], 3, /^zkts: NONODE: no node at \/a \(get\)\n$/],
      [['stat', '/a'], 3, /^zkts: NONODE: no node at \/a \(stat\)\n$/],
      [['ls', '/a/b'], 3, /^zkts: NONODE: no node at \/a\/b \(ls\)\n$/],
      [['create', '/here'], 4, /^zkts: NODEEXISTS: node exists at \/here \(create\)\n$/],
      [
        ['create', '/no/parent'],
        3,
        /^zkts: NONODE: cannot create \/no\/parent: its parent \/no does not exist; create -p makes the missing parents \(create\)\n$/,
      ],
      [['get', 'relative'], 2, /^zkts: BADARGUMENTS: .*relative.* \(get\)\n$/],
      [['create', '-e', '-c', '/x'], 2, /^zkts: -c \(container\) does not combine/],
      [['ls', '--bogus'], 2, /^zkts: unknown option --bogus for ls \(see zkts ls --help\)\n$/],
      [['get'], 2, /^zkts: usage: zkts get .*PATH \(see zkts get --help\)\n$/],
      [['frobnicate'], 2, /^zkts: unknown command "frobnicate"/],
      [['set', '-v', 'x', '/here', 'd'], 2, /^zkts: --version must be a whole number/],
    ];
    for (const [args, code, stderr] of cases) {
      const result = await runCli(args, { servers });
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({
        args,
        code,
        stdout: '',
      });
      expect(result.stderr).toMatch(stderr);
    }
  });

  it('a chroot that does not exist is named as such (ls, create)', async () => {
    const { servers } = await freshChroot();
    const missing = `${servers}/missing`;
    const chroot = missing.slice(missing.indexOf('/'));
    const listed = await runCli(['ls', '/'], { servers: missing });
    expect(listed.code).toBe(3);
    expect(listed.stderr).toBe(`zkts: NONODE: the chroot ${chroot} does not exist (ls)\n`);
    const created = await runCli(['create', '/config', 'x'], { servers: missing });
    expect(created.code).toBe(3);
    expect(created.stderr).toBe(
      `zkts: NONODE: cannot create /config: the chroot ${chroot} does not exist (create)\n`,
    );
  });

  it('no server: CONNECTIONLOSS naming the host, status 69, within --timeout', async () => {
    const result = await runCli(['--timeout', '500', 'ls', '/'], { servers: '127.0.0.1:1' });
    expect(result.code).toBe(69);
    expect(result.stderr).toMatch(/^zkts: CONNECTIONLOSS: .*127\.0\.0\.1:1.* \(ls\)\n$/);
    expect(result.stderr.split('\n')).toHaveLength(2);
  });

  it('--help documents the commands and exit statuses; --version prints the package version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const command of [
      'ls',
      'get',
      'set',
      'create',
      'rm',
      'stat',
      'watch',
      'acl',
      'lock',
      'srvr',
      'mntr',
      'shell',
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    for (const status of [3, 4, 5, 6, 7, 69, 73, 75]) {
      expect(help.stdout).toMatch(new RegExp(`^\\s+${status}  `, 'm'));
    }
    expect((await runCli(['lock', '--help'])).stdout).toMatch(/--grace MS/);
    const pkg = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../../package.json'), 'utf8'),
    ) as {
      version: string;
    };
    expect(await runCli(['--version'])).toMatchObject({ code: 0, stdout: `zkts ${pkg.version}\n` });
  });

  it('without a command and without a terminal it explains itself (status 2)', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no command given/);
  });
});
