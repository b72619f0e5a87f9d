// Read-only mode: a member cut off from its quorum keeps serving reads to clients that accept it
// (`readOnly: true`), and the client moves to a read-write server once one is back.
//
// Server facts this relies on (ZooKeeper 3.8): a read-only server only gives *new* sessions, and
// only with localSessionsEnabled=true (otherwise it refuses with a bare NOTREADONLY reply); a
// session created by the read-write quorum is reported expired by a read-only server.
import { beforeAll, describe, expect, it } from 'vitest';
import { connect, type SessionState } from '../../../src/index.js';
import type { ZkEnsemble } from '../../harness/index.js';
import { readOnlyEnsemble, retry } from './readonly-ensemble.js';
import { rejection, until } from './setup.js';

const world = readOnlyEnsemble();
const { clients } = world;
let ensemble: ZkEnsemble;
beforeAll(() => {
  ensemble = world.ensemble();
});

describe('read-only mode', () => {
  it('reads from an isolated member, refuses writes, then returns to read-write', async () => {
    const isolated = ensemble.members[0]!;
    const writer = await connect(ensemble.connectString, { sessionTimeout: 6_000 });
    clients.push(writer);
    await writer.create('/ro', 'readable');
    // Make sure the member to isolate has the node before it is cut off.
    const check = await connect(isolated.connectString, { sessionTimeout: 6_000 });
    await check.sync('/ro');
    expect(await check.exists('/ro')).not.toBeNull();
    await check.close();

    await ensemble.kill(1);
    await ensemble.kill(2);
    // The member needs a few seconds to notice and turn read-only.
    await retry(async () => {
      const answer = await isolated.fourLetter('isro');
      if (answer.trim() !== 'ro') throw new Error(`isro says ${answer}`);
    }, 30_000);
    const reader = await retry(
      () =>
        connect(isolated.connectString, {
          readOnly: true,
          sessionTimeout: 20_000,
          connectTimeout: 2_000,
        }),
      30_000,
    );
    clients.push(reader);
    const states: SessionState[] = [];
    reader.on('state', (s) => states.push(s));
    expect(reader.state).toBe('connected-readonly');
    expect(new TextDecoder().decode((await reader.getData('/ro')).data)).toBe('readable');
    expect(await rejection(reader.setData('/ro', 'nope'))).toMatchObject({ code: 'NOTREADONLY' });

    // A client that does not accept read-only servers gets no session there, and says why.
    const refused = await rejection(
      connect(isolated.connectString, { connectTimeout: 1_500, sessionTimeout: 2_000 }),
    );
    expect(refused).toMatchObject({ code: 'TIMEOUT' });
    expect(refused.message).toContain(isolated.connectString);

    // Quorum back: the reader finds a read-write server by itself (isro probes) and moves there.
    await ensemble.start(1);
    await ensemble.start(2);
    await ensemble.waitForQuorum(60_000);
    await until(reader, 'connected', 60_000);
    await reader.setData('/ro', 'writable again');
    expect(states).toContain('suspended');
    expect(states.at(-1)).toBe('connected');
  }, 150_000);
});
