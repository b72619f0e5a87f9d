// zkts with SASL DIGEST-MD5 credentials (--sasl or ZKTS_SASL) against a server configured for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandalone, uniquePath, type ZkServer } from '../../harness/index.js';
import { runCli } from './helpers.js';

const json = (text: string) => JSON.parse(text) as { identities: unknown[] };

describe('zkts --sasl', () => {
  let server: ZkServer;

  beforeAll(async () => {
    server = await startStandalone({ sasl: { users: { alice: 'pw:with:colons' } } });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it('logs in with --sasl or ZKTS_SASL; a sasl ACL shuts out others; bad ones exit 7 or 2', async () => {
    const servers = server.connectString;
    const who = await runCli(['--sasl', 'alice:pw:with:colons', 'whoami', '--json'], { servers });
    expect(who).toMatchObject({ code: 0, stderr: '' });
    expect(json(who.stdout).identities).toContainEqual({ scheme: 'sasl', user: 'alice' });

    const env = { ZKTS_SASL: 'alice:pw:with:colons' };
    const path = uniquePath('cli-sasl');
    expect((await runCli(['create', path, 'mine'], { servers, env })).code).toBe(0);
    expect((await runCli(['acl', 'set', path, 'sasl:alice:cdrwa'], { servers, env })).code).toBe(0);
    expect((await runCli(['get', path], { servers, env })).stdout).toBe('mine');
    const denied = await runCli(['get', path], { servers });
    expect(denied.code).toBe(7);
    expect(denied.stderr).toMatch(/NOAUTH/);

    const wrong = await runCli(['--sasl', 'alice:wrong', 'ls', '/'], { servers });
    expect(wrong.code).toBe(7);
    expect(wrong.stderr).toMatch(
      /^zkts: AUTHFAILED: SASL DIGEST-MD5 authentication as "alice" failed/,
    );
    const malformed = await runCli(['--sasl', 'alice', 'ls', '/'], { servers });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/sasl must be user:password/);
  }, 60_000);
});
