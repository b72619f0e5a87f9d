// close() at every step of a session renewal (issue 38, "schedules nobody has tried yet"): the
// client is cut off past its session timeout, the server expires the session, and the client
// renews it; close() is called when the client reports `expired`, `connecting`, `renewed` (the new
// session granted, not yet `connected`) and `connected`. Each time close() settles, the client ends
// `closed`, a call made before it settles (none hangs), and no session of the client is left on
// the server, so no ephemeral node outlives the close.
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { inModel } from '../locks/model-client.js';

type Step = 'expired' | 'connecting' | 'renewed' | 'connected';
const STEPS: Step[] = ['expired', 'connecting', 'renewed', 'connected'];

describe('close() at every step of a renewal', () => {
  for (const step of STEPS) {
    it(`at '${step}': close settles, the client is closed, no session of it is left on the server`, async () => {
      await inModel(async (world) => {
        const client = await world.connect('a', { sessionTimeout: 4_000 });
        const first = client.sessionId;
        await world.settle(client.create('/reg', 'x', { mode: CreateMode.EPHEMERAL }));
        const seen: bigint[] = [first];
        let closing: Promise<void> | undefined;
        let pending: Promise<unknown> | undefined;
        const closeNow = () => {
          if (closing) return;
          // A call made just before the close must settle too.
          pending = client.exists('/reg').then(
            () => 'answered',
            (error: unknown) => (error as { code?: string }).code,
          );
          closing = client.close();
        };
        client.on('renewed', ({ sessionId }) => {
          seen.push(sessionId);
          if (step === 'renewed') closeNow();
        });
        client.on('state', (state) => {
          if (state === step && (step !== 'connected' || client.sessionId !== first)) closeNow();
        });
        world.net.blackHole('a', '*', world.sched.now + 12_000);
        await world.run(60_000);
        expect(closing, 'the step was reached').toBeDefined();
        await world.settle(closing!);
        expect(client.state).toBe('closed');
        expect(await world.settle(pending!)).toBeDefined();
        await world.run(30_000);
        for (const id of seen)
          expect(world.ensemble.sessions.has(id), `0x${id.toString(16)}`).toBe(false);
        const observer = await world.connect('observer');
        expect(await world.settle(observer.exists('/reg'))).toBeNull();
      });
    });
  }
});
