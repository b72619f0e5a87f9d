// What a zkCli user types: quotes kept inside a word, `delete`/`deleteall`, and a digest ACL
// entry written with a user name where its hash belongs.
import { describe, expect, it } from 'vitest';
import { freshChroot, runCli } from './helpers.js';

describe('the shell keeps what was typed', () => {
  it('create -p /app/config {"debug":false} stores {"debug":false}, as zkCli does', async () => {
    const { servers, root } = await freshChroot();
    const result = await runCli(['shell'], {
      servers,
      input: 'create -p /app/config {"debug":false}\ncreate /app/other \'{"a": "b c"}\'\n',
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { data } = await root.getData('/app/config');
    expect(new TextDecoder().decode(data)).toBe('{"debug":false}');
    const other = await root.getData('/app/other');
    expect(new TextDecoder().decode(other.data)).toBe('{"a": "b c"}');
  });

  it('a line whose quoting zkCli’s rule cannot say is refused with a hint, and nothing is stored', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/x', 'before');
    const result = await runCli(['shell'], { servers, input: `set /x "say \\"hi\\""\n` });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/quoted word must end at its closing quote/);
    expect(result.stderr).toMatch(/zkts set PATH -/);
    expect(new TextDecoder().decode((await root.getData('/x')).data)).toBe('before');
  });
});

describe('zkCli’s delete and deleteall', () => {
  it('delete removes a node, refuses one with children (NOTEMPTY, 6) and checks -v', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/leaf');
    await root.create('/parent');
    await root.create('/parent/child');
    expect((await runCli(['delete', '/leaf'], { servers })).code).toBe(0);
    expect(await root.exists('/leaf')).toBeNull();
    const notEmpty = await runCli(['delete', '/parent'], { servers });
    expect(notEmpty.code).toBe(6);
    expect(notEmpty.stderr).toMatch(/NOTEMPTY/);
    const wrongVersion = await runCli(['delete', '-v', '3', '/parent/child'], { servers });
    expect(wrongVersion.code).toBe(5);
    expect(await root.exists('/parent/child')).not.toBeNull();
  });

  it('deleteall removes a whole subtree; in the shell too', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/a');
    await root.create('/a/b');
    await root.create('/a/b/c');
    await root.create('/d');
    await root.create('/d/e');
    expect((await runCli(['deleteall', '/a'], { servers })).code).toBe(0);
    expect(await root.exists('/a')).toBeNull();
    const shell = await runCli(['shell'], { servers, input: 'deleteall /d\n' });
    expect(shell.code).toBe(0);
    expect(await root.exists('/d')).toBeNull();
  });
});

describe('a digest ACL entry without its hash', () => {
  it('acl set /svc digest:bob:cdrwa is refused before sending, naming user:base64(sha1) and zkts digest', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/svc');
    const result = await runCli(['acl', 'set', '/svc', 'digest:bob:cdrwa'], { servers });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/USER:base64\(sha1\(USER:PASSWORD\)\)/);
    expect(result.stderr).toMatch(/`zkts digest bob:PASSWORD` prints it/);
    expect((await root.getACL('/svc')).acl[0]?.id.scheme).toBe('world');
  });

  it('a clear-text password where the hash belongs is set, with a warning', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/svc');
    const result = await runCli(['acl', 'set', '/svc', 'digest:bob:secret:cdrwa,world:anyone:r'], {
      servers,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /warning: digest ACL id "bob:secret" does not end in base64\(sha1\)/,
    );
    expect((await root.getACL('/svc')).acl).toHaveLength(2);
  });

  it('a proper digest id passes without a warning', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/svc');
    const id = (await runCli(['digest', 'bob:secret'])).stdout.trim();
    const result = await runCli(['acl', 'set', '/svc', `digest:${id}:cdrwa,world:anyone:r`], {
      servers,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
