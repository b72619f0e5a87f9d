// guaranteedDelete and deleteRecursive against the scripted server: a delete sent again after an
// unknown outcome (a lost reply, an expired session) never removes a node created since by
// someone else, and the outcome says what the caller can know.
import { describe, expect, it, vi } from 'vitest';
import { CreateMode, ListenerError } from '../../../src/index.js';
import { deleteRecursive, guaranteedDelete } from '../../../src/recipes/index.js';
import { type ScriptedClient, scriptedSessions } from '../locks/scripted-client.js';

const WAIT = { timeout: 5_000, interval: 5 };
const PAUSE = { baseDelay: 100, jitter: 'none' } as const;

/** Resolves once `client` has been answered `outcome` for a delete of `path`. */
async function deleteAnswered(client: ScriptedClient, path: string, outcome: string) {
  await vi.waitFor(
    () => expect(client.server.requests({ op: 'delete', path }).at(-1)?.outcome).toBe(outcome),
    WAIT,
  );
}

describe('guaranteedDelete never deletes a node created since by someone else', () => {
  it('an ephemeral node of a session that expired: the registration made after it stays', async () => {
    const [server, mine] = scriptedSessions(1);
    const theirs = server.connect();
    server.create(mine.sessionId, '/reg', 'mine', CreateMode.EPHEMERAL);
    server.fail({ op: 'delete', path: '/reg', code: 'SESSIONEXPIRED' });
    const outcome = guaranteedDelete(mine, '/reg', { retry: PAUSE });
    await deleteAnswered(mine, '/reg', 'SESSIONEXPIRED');
    // The session is renewed (its ephemeral node goes with it) and another client registers.
    mine.renew();
    server.create(theirs.sessionId, '/reg', 'theirs', CreateMode.EPHEMERAL);
    expect(await outcome).toMatchObject({ status: 'deleted-or-gone' });
    expect(server.nodes.get('/reg')?.stat.ephemeralOwner).toBe(theirs.sessionId);
  });

  it("the call's session expired before any look found the node: the registration made after it stays", async () => {
    const [server, mine] = scriptedSessions(1);
    const theirs = server.connect();
    const created = server.create(mine.sessionId, '/reg', 'mine', CreateMode.EPHEMERAL);
    // The newest zxid this client has seen: its own create's.
    Object.defineProperty(mine, 'lastZxid', { value: created.stat.czxid });
    server.fail({ op: 'exists', path: '/reg', code: 'SESSIONEXPIRED' });
    const outcome = guaranteedDelete(mine, '/reg', { retry: PAUSE });
    await vi.waitFor(
      () =>
        expect(server.requests({ op: 'exists', path: '/reg' }).at(-1)?.outcome).toBe(
          'SESSIONEXPIRED',
        ),
      WAIT,
    );
    mine.renew();
    server.create(theirs.sessionId, '/reg', 'theirs', CreateMode.EPHEMERAL);
    expect(await outcome).toMatchObject({ status: 'gone' });
    expect(server.nodes.get('/reg')?.stat.ephemeralOwner).toBe(theirs.sessionId);
  });

  it("the call's session expired before any look found the node: a persistent node the client had not seen yet is deleted", async () => {
    const [server, mine] = scriptedSessions(1);
    const theirs = server.connect();
    // Made by another client before the call, after the newest zxid this client has seen.
    Object.defineProperty(mine, 'lastZxid', { value: 0n });
    server.create(theirs.sessionId, '/job', 'work', CreateMode.PERSISTENT);
    server.fail({ op: 'exists', path: '/job', code: 'SESSIONEXPIRED' });
    const outcome = guaranteedDelete(mine, '/job', { retry: PAUSE });
    await vi.waitFor(
      () =>
        expect(server.requests({ op: 'exists', path: '/job' }).at(-1)?.outcome).toBe(
          'SESSIONEXPIRED',
        ),
      WAIT,
    );
    mine.renew();
    expect(await outcome).toMatchObject({ status: 'deleted' });
    expect(server.nodes.has('/job')).toBe(false);
  });

  it('a delete applied whose reply was lost: the node created again meanwhile stays', async () => {
    const [server, mine] = scriptedSessions(1);
    server.create(0n, '/job', 'old', CreateMode.PERSISTENT);
    server.fail({ op: 'delete', path: '/job', code: 'CONNECTIONLOSS', applied: true });
    const outcome = guaranteedDelete(mine, '/job', { retry: PAUSE });
    await deleteAnswered(mine, '/job', 'CONNECTIONLOSS');
    server.create(0n, '/job', 'new', CreateMode.PERSISTENT);
    expect(await outcome).toMatchObject({ status: 'deleted-or-gone' });
    expect(new TextDecoder().decode(server.nodes.get('/job')?.data)).toBe('new');
  });

  it('the node it meant, still there after a lost reply, is deleted', async () => {
    const [server, mine] = scriptedSessions(1);
    server.create(0n, '/job', 'old', CreateMode.PERSISTENT);
    server.fail({ op: 'delete', path: '/job', code: 'CONNECTIONLOSS' });
    expect(await guaranteedDelete(mine, '/job', { retry: PAUSE })).toMatchObject({
      status: 'deleted',
    });
    expect(server.nodes.has('/job')).toBe(false);
  });
});

describe('a delete whose reply was lost after the server applied it', () => {
  it("guaranteedDelete reports 'deleted-or-gone', not 'gone'", async () => {
    const [server, mine] = scriptedSessions(1);
    server.create(0n, '/job', undefined, CreateMode.PERSISTENT);
    server.fail({ op: 'delete', path: '/job', code: 'CONNECTIONLOSS', applied: true });
    expect(await guaranteedDelete(mine, '/job', { retry: PAUSE })).toMatchObject({
      status: 'deleted-or-gone',
    });
  });

  it("guaranteedDelete still reports 'gone' for a node that was never there", async () => {
    const [, mine] = scriptedSessions(1);
    expect(await guaranteedDelete(mine, '/none')).toMatchObject({
      status: 'gone',
    });
  });

  it("deleteRecursive reports 'deleted-or-gone', not 'gone'", async () => {
    const [server, mine] = scriptedSessions(1);
    server.create(0n, '/tree', undefined, CreateMode.PERSISTENT);
    server.fail({ op: 'delete', path: '/tree', code: 'CONNECTIONLOSS', applied: true });
    expect(await deleteRecursive(mine, '/tree', { retry: PAUSE })).toBe('deleted-or-gone');
    expect(await deleteRecursive(mine, '/tree')).toBe('gone');
    server.create(0n, '/tree', undefined, CreateMode.PERSISTENT);
    expect(await deleteRecursive(mine, '/tree')).toBe('deleted');
  });
});

describe('guaranteedDelete onSettled', () => {
  it('a callback that throws or rejects goes to console.error as a ListenerError, never thrown', async () => {
    const [server, client] = scriptedSessions(1);
    server.create(client.sessionId, '/a', 'x', CreateMode.PERSISTENT);
    server.create(client.sessionId, '/b', 'x', CreateMode.PERSISTENT);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const thrown = await guaranteedDelete(client, '/a', {
        onSettled: () => {
          throw new Error('callback bug');
        },
      });
      const rejected = await guaranteedDelete(client, '/b', {
        onSettled: (async () => {
          throw new Error('async callback bug');
        }) as () => void,
      });
      expect([thrown.status, rejected.status]).toEqual(['deleted', 'deleted']);
      await vi.waitFor(() => expect(logged).toHaveBeenCalledTimes(2), WAIT);
      const reported = logged.mock.calls.map((call) => call.at(-1));
      expect(reported.every((error) => error instanceof ListenerError)).toBe(true);
      expect(reported.map((error) => (error as ListenerError).event)).toEqual([
        'settled',
        'settled',
      ]);
    } finally {
      logged.mockRestore();
    }
  });
});
