// An acquire that meets SESSIONEXPIRED: it starts again on the new session when the client has
// renewed it, and fails with SESSIONEXPIRED when the session is over for good (expired without
// renewal, closed, auth failed, or the client closing). Against the scripted client.
import { describe, expect, it } from 'vitest';
import type { SessionState } from '../../../src/index.js';
import { ExclusiveLock, type Lock, Mutex, Semaphore } from '../../../src/locks/index.js';
import type { ScriptedClient, ScriptedServer as Server } from './scripted-client.js';
import { scriptedSessions } from './scripted-client.js';

const recipes: [string, (client: ScriptedClient) => Lock][] = [
  ['Mutex', (client) => new Mutex(client, '/r/lock')],
  ['Semaphore', (client) => new Semaphore(client, '/r/lock', { maxLeases: 1 })],
  ['ExclusiveLock', (client) => new ExclusiveLock(client, '/r/lock')],
];

/** A create that fails with SESSIONEXPIRED, as one in flight when the session expired does. */
const expireNextCreate = (server: Server) =>
  server.fail({ op: 'create2', path: /^\/r\/lock/, code: 'SESSIONEXPIRED' });

describe.each(recipes)('%s across a session expiry (scripted client)', (_name, make) => {
  it('a renewed session (connected again): the acquire starts again and holds on it', async () => {
    const [server, client] = scriptedSessions(1);
    expireNextCreate(server);
    const lease = await make(client).acquire({ timeout: 2_000 });
    expect(lease.signal.aborted).toBe(false);
    expect(server.nodes.get(lease.path)?.stat.ephemeralOwner).toBe(client.sessionId);
    await lease.release();
  });

  it.each(['auth-failed', 'expired', 'closed'] as SessionState[])(
    'a session %s for good: the acquire fails with SESSIONEXPIRED, nothing is left',
    async (state) => {
      const [server, client] = scriptedSessions(1);
      await client.create2('/r', undefined, {});
      client.setState(state);
      expireNextCreate(server);
      await expect(make(client).acquire({ timeout: 2_000 })).rejects.toMatchObject({
        code: 'SESSIONEXPIRED',
      });
      expect(server.children('/r').filter((n) => n !== 'lock')).toEqual([]);
    },
  );

  it('a client that is closing: the acquire fails with SESSIONEXPIRED', async () => {
    const [server, client] = scriptedSessions(1);
    expireNextCreate(server);
    client.closing = true;
    await expect(make(client).acquire({ timeout: 2_000 })).rejects.toMatchObject({
      code: 'SESSIONEXPIRED',
    });
  });
});
