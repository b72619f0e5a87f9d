// `zkts watch` streaming events, and the shell: one session for many commands, path completion.
import { describe, expect, it } from 'vitest';
import { completeLine } from '../../../src/cli/shell.js';
import { proxyToSharedServer } from '../../support/integration.js';
import { freshChroot, runCli, startCli } from './helpers.js';

interface Event {
  time: string;
  type: string;
  path: string;
}

const events = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Event);

describe('zkts watch', () => {
  it('streams every event under a path (-R --json: one object per line) until SIGINT, then exits 0', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/w');
    const cli = await startCli(['watch', '-R', '--json', '/w'], { servers });
    await cli.waitForStderr(/watching \/w and its descendants/);
    await root.create('/w/a', 'x');
    await root.setData('/w/a', 'y');
    await root.setData('/w/a', 'z');
    await root.delete('/w/a');
    await root.create('/elsewhere');
    await cli.waitForStdout(/NodeDeleted/);
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code).toBe(0);
    expect(events(result.stdout).map((e) => [e.type, e.path])).toEqual([
      ['NodeCreated', '/w/a'],
      ['NodeDataChanged', '/w/a'],
      ['NodeDataChanged', '/w/a'],
      ['NodeDeleted', '/w/a'],
    ]);
    expect(Date.parse(events(result.stdout)[0]!.time)).toBeGreaterThan(0);
  });

  it('without -R, a node’s own events and its children changes, as text', async () => {
    const { servers, root } = await freshChroot();
    const cli = await startCli(['watch', '/p'], { servers });
    await cli.waitForStderr(/watching \/p \(Ctrl-C/);
    await root.create('/p');
    await root.create('/p/child');
    await root.create('/p/child/grandchild');
    await root.setData('/p', 'v');
    await cli.waitForStdout(/NodeDataChanged/);
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.map((line) => line.split(/\s+/).slice(1))).toEqual([
      ['NodeCreated', '/p'],
      ['NodeChildrenChanged', '/p'],
      ['NodeDataChanged', '/p'],
    ]);
  });
});

describe('zkts watch when the session expires', () => {
  it('goes on on a new session: says Resync (renewal), then prints the next changes', async () => {
    const { chroot, root } = await freshChroot();
    const proxy = await proxyToSharedServer();
    const server = proxy.connectString + chroot;
    const cli = await startCli(['--server', server, '--session-timeout', '1500', 'watch', '/w']);
    await cli.waitForStderr(/watching \/w/);
    proxy.freeze('drop');
    // Longer than the session timeout: the client declares the session expired.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    proxy.thaw();
    proxy.cut();
    await cli.waitForStdout(/Resync\s+\/w\s+\(renewal\)/);
    await root.create('/w');
    await cli.waitForStdout(/NodeCreated\s+\/w/);
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(0);
  });
});

describe('zkts shell', () => {
  it('runs commands from stdin on one session; errors do not stop it; exit N sets the status', async () => {
    const { servers } = await freshChroot();
    const script = [
      'create /s "two words"',
      'create -e /s/eph',
      '# a comment',
      'ephemerals',
      'get /s',
      'get /missing',
      'lock /l -- true',
      // As in zkCli, a quote inside a word is kept as typed.
      "set /s it's",
      'ls /s',
      'exit 3',
      'get /s',
    ].join('\n');
    const result = await runCli(['shell'], { servers, input: `${script}\n` });
    expect(result.code).toBe(3);
    // The ephemeral node is visible to the session that made it: one session for all commands.
    expect(result.stdout).toBe('/s\n/s/eph\n/s/eph\ntwo words\neph\n');
    expect(result.stderr.split('\n')).toEqual([
      'zkts: NONODE: no node at /missing (get)',
      'zkts: lock is not available in the shell: run `zkts lock` from your system shell (see zkts lock --help)',
      '',
    ]);
    // The session ended with the shell: its ephemeral went with it.
    expect((await runCli(['ls', '/s'], { servers })).stdout).toBe('');
    expect((await runCli(['get', '/s'], { servers })).stdout).toBe("it's");
  });

  it('ends with the last command’s status at end of input', async () => {
    const { servers } = await freshChroot();
    const result = await runCli(['shell'], { servers, input: 'ls /\nget /nope\n' });
    expect(result.code).toBe(3);
    expect((await runCli(['shell'], { servers, input: 'get /nope\nls /\n' })).code).toBe(0);
  });

  it('--timeout bounds each request: a stalled one fails with TIMEOUT (a limit of the client, never the server OPERATIONTIMEOUT), the shell carries on', async () => {
    const { chroot } = await freshChroot();
    const proxy = await proxyToSharedServer();
    const server = proxy.connectString + chroot;
    const cli = await startCli(['--server', server, '--timeout', '1000', 'shell']);
    cli.child.stdin!.write('create /t x\n');
    await cli.waitForStdout(/^\/t\n/);
    proxy.freeze('hold');
    const stalledAt = Date.now();
    cli.child.stdin!.write('get /t\n');
    await cli.waitForStderr(/TIMEOUT/);
    expect(Date.now() - stalledAt).toBeGreaterThanOrEqual(900);
    proxy.thaw();
    cli.child.stdin!.end('get /t\n');
    const result = await cli.done;
    expect(result.stderr).toBe('zkts: TIMEOUT: no reply within 1000 ms (--timeout) (get)\n');
    expect(result.stdout).toBe('/t\nx\n');
    expect(result.code).toBe(0);
  });

  it('completes commands, options and paths (children of the typed parent)', async () => {
    const { root } = await freshChroot();
    await root.create('/app');
    for (const name of ['alpha', 'alpine', 'beta']) await root.create(`/app/${name}`);
    expect(await completeLine(root, 'cr')).toEqual([['create'], 'cr']);
    expect(await completeLine(root, 'ls --re')).toEqual([['--recursive'], '--re']);
    expect(await completeLine(root, 'get /app/al')).toEqual([
      ['/app/alpha', '/app/alpine'],
      '/app/al',
    ]);
    expect(await completeLine(root, 'ls /app/')).toEqual([
      ['/app/alpha', '/app/alpine', '/app/beta'],
      '/app/',
    ]);
    expect(await completeLine(root, 'ls /a')).toEqual([['/app'], '/a']);
    expect(await completeLine(root, 'ls /missing/x')).toEqual([[], '/missing/x']);
    expect(await completeLine(undefined, 'ls /a')).toEqual([[], '/a']);
  });
});
