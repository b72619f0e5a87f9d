// Session renewal with read-only servers in the ensemble (issue 38's untried schedule): a client
// that accepts read-only servers loses its quorum, finds its session reported expired by the
// member that turned read-only, renews there (a read-only session), and renews again when the
// quorum is back; its lease ends at the first loss of contact, and it locks and writes again
// afterwards. The model server has no read-only members, so this runs on a real ensemble.
//
// Server facts this relies on (ZooKeeper 3.8, see readonly.test.ts): a read-only server only
// gives new sessions, with localSessionsEnabled=true; a session created by the read-write quorum
// is reported expired by a read-only server.
import { beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../../src/index.js';
import { LockLostError, Mutex } from '../../../src/locks/index.js';
import type { ZkEnsemble } from '../../harness/index.js';
import { readOnlyEnsemble, retry } from './readonly-ensemble.js';
import { rejection, until } from './setup.js';

const world = readOnlyEnsemble();
const { clients } = world;
let ensemble: ZkEnsemble;
beforeAll(() => {
  ensemble = world.ensemble();
});

describe('session renewal with a read-only member', () => {
  it('renews on the read-only member, then again on the read-write quorum; the lease ends at the first loss', async () => {
    const member = ensemble.members[0]!;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // Only the member that will be left alone is in its list: every reconnect goes there.
      const zk = await connect(member.connectString, { readOnly: true, sessionTimeout: 6_000 });
      clients.push(zk);
      const first = zk.sessionId;
      const renewals: bigint[] = [];
      zk.on('renewed', ({ sessionId }) => renewals.push(sessionId));
      const states: string[] = [];
      zk.on('state', (state) => states.push(state));
      await zk.create('/ror', 'readable');
      const lease = await new Mutex(zk, '/ror-lock').acquire();
      expect(lease.signal.aborted).toBe(false);
      await zk.sync('/ror');

      await ensemble.kill(1);
      await ensemble.kill(2);
      await retry(async () => {
        const answer = await member.fourLetter('isro');
        if (answer.trim() !== 'ro') throw new Error(`isro says ${answer}`);
      }, 30_000);
      // The read-only member reports the quorum's session expired: the client renews there.
      await until(zk, 'connected-readonly', 40_000);
      expect(renewals.length).toBeGreaterThanOrEqual(1);
      expect(zk.sessionId).not.toBe(first);
      expect(lease.signal.aborted).toBe(true);
      expect(lease.signal.reason).toBeInstanceOf(LockLostError);
      expect(new TextDecoder().decode((await zk.getData('/ror')).data)).toBe('readable');
      expect(await rejection(zk.setData('/ror', 'nope'))).toMatchObject({ code: 'NOTREADONLY' });
      // A lock cannot be taken read-only: it fails or waits, and never hands out a lease.
      const attempt = await rejection(new Mutex(zk, '/ror-lock').acquire({ timeout: 1_500 }));
      expect(attempt).toBeInstanceOf(Error);

      // The quorum is back: the client reaches a read-write server and works there.
      await ensemble.start(1);
      await ensemble.start(2);
      await ensemble.waitForQuorum(60_000);
      await until(zk, 'connected', 60_000);
      await retry(() => zk.setData('/ror', 'writable again'), 20_000);
      const again = await new Mutex(zk, '/ror-lock').acquire({ timeout: 20_000 });
      expect(again.signal.aborted).toBe(false);
      await again.release();
      // Expired, then read-only on the renewed session (3.8 then keeps that session when the
      // member rejoins the quorum: seen as suspended, connected, with no second renewal).
      const expired = states.indexOf('expired');
      expect(expired).toBeGreaterThanOrEqual(0);
      expect(states.indexOf('connected-readonly', expired)).toBeGreaterThan(expired);
      expect(states.at(-1)).toBe('connected');
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }, 240_000);
});
