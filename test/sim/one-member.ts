// One model server on the simulated network and nothing else: the world of the differential
// script (diff-main.ts) and of the unit tests that run a real Client in-process
// (test/unit/locks/model-client.ts). Forks `rng` twice, the ensemble first, then the network.

import { Ensemble } from '../../src/testing/model/ensemble.js';
import type { Rng, Scheduler } from './env.js';
import { SimNetwork } from './net.js';

export function oneMemberWorld(
  sched: Scheduler,
  rng: Rng,
  tickTime = 2000,
): { ensemble: Ensemble; net: SimNetwork; host: string } {
  const ensemble = new Ensemble(
    sched,
    rng.fork(),
    {
      members: 1,
      tickTime,
      maxBuffer: 1_048_575,
      followerLag: () => 0,
      forwardLag: () => 0,
      // The real server's container sweep runs once a minute; a script or a test is over long
      // before.
      containerSweep: 10 * 60_000,
    },
    () => {},
    () => {},
  );
  const member = ensemble.members[0]!;
  const net = new SimNetwork(sched, rng.fork(), new Map([[member.host, member]]));
  return { ensemble, net, host: member.host };
}
