// A world's client processes: each runs the real client against the model ensemble and its
// workload on it, and starts a new session when its session ends, as an application would.
import { Client } from '../../src/client/client.js';
import type { Transport } from '../../src/session/transport.js';
import type { SimNetwork } from './net.js';
import type { WorkloadInstance } from './workloads.js';
import { DIGEST, type World } from './world.js';
import type { WorldConfig } from './world-config.js';

/** The most connections a process may open within one second (see `dialsCounted`). */
const MAX_DIALS_PER_SECOND = 20;

export class Processes {
  /** Each process's current client (null before its first session). */
  readonly clients: (Client | null)[] = [];
  /** Each process's client's lastZxid as last seen (it must never go back within a session). */
  readonly lastZxid: bigint[] = [];
  /** Every session a process had (its sessions' nodes may outlive them). */
  readonly processOfSession = new Map<bigint, string>();
  private stopping = false;

  constructor(
    private readonly world: World,
    private readonly config: WorldConfig,
    private readonly net: SimNetwork,
    private readonly connectString: string,
  ) {}

  /** Starts every process's loop (each tracked by the world: it must end after `stop`). */
  start(instance: WorkloadInstance): void {
    for (let p = 0; p < this.config.processes; p++) {
      this.clients.push(null);
      this.lastZxid.push(0n);
      const name = `p${p}`;
      void this.world.track(`${name} workload`, this.run(p, name, instance));
    }
  }

  /** No process starts a new session from now on; the workloads are told to wind down. */
  stop(): void {
    this.stopping = true;
  }

  /** Checks after a step: no client's lastZxid went back. */
  checkZxids(): void {
    for (let p = 0; p < this.clients.length; p++) {
      const c = this.clients[p];
      if (!c) continue;
      const z = c.lastZxid;
      if (z < this.lastZxid[p]!) {
        this.world.violation(`p${p} lastZxid went back from ${this.lastZxid[p]} to ${z}`);
      }
      this.lastZxid[p] = z;
    }
  }

  /** Closes every process's client (each close tracked: it must settle). */
  closeAll(): void {
    for (let p = 0; p < this.clients.length; p++) {
      const c = this.clients[p];
      if (c) void this.world.track(`p${p} close`, c.close());
    }
  }

  private async run(p: number, name: string, instance: WorkloadInstance): Promise<void> {
    const { world, config } = this;
    await new Promise((r) => setTimeout(r, p * 3));
    while (!this.stopping) {
      let client: Client;
      try {
        const dials = dialsCounted(world, name, this.net.transportFor(name), instance);
        client = await Client.connect(this.connectString, {
          transport: world.plant?.transport ? world.plant.transport(dials) : dials,
          sessionTimeout: config.sessionTimeout,
          connectTimeout: config.sessionTimeout * 3,
          ...(config.auth ? { auth: [{ scheme: 'digest', credentials: DIGEST }] } : {}),
        });
      } catch (error) {
        world.log(`${name} connect failed: ${(error as Error).message}`);
        continue;
      }
      if (this.stopping) {
        await client.close();
        return;
      }
      this.clients[p] = client;
      this.lastZxid[p] = 0n;
      this.processOfSession.set(client.sessionId, name);
      world.log(`${name} connected 0x${client.sessionId.toString(16)} to ${client.server}`);
      client.on('state', (state) => {
        world.log(`${name} state ${state}`);
        if (state === 'connected')
          world.reconnects.set(name, (world.reconnects.get(name) ?? 0) + 1);
      });
      client.on('renewed', ({ previousSessionId, sessionId }) => {
        world.stats.renewals = (world.stats.renewals ?? 0) + 1;
        this.processOfSession.set(sessionId, name);
        world.log(
          `${name} renewed 0x${previousSessionId.toString(16)} -> 0x${sessionId.toString(16)}`,
        );
      });
      await instance.run({ world, client, name, index: p, stopping: () => this.stopping });
      if (!this.stopping) {
        world.log(`${name} session over (${client.state}); starting a new one`);
        await client.close();
      }
    }
  }
}

/**
 * `transport` with its dials counted: a process that dials more than MAX_DIALS_PER_SECOND times
 * in a second reconnects in a hot loop. The pacing allows about six a second at worst (a round
 * of three hosts failing, then at least half a second's pause; after a session was had, a random
 * pause of up to a second).
 */
function dialsCounted(
  world: World,
  process: string,
  transport: Transport,
  instance: WorkloadInstance,
): Transport {
  const recent: number[] = [];
  let reported = false;
  return {
    connect(options) {
      const now = world.sched.now;
      recent.push(now);
      while (recent.length > 0 && recent[0]! <= now - 1000) recent.shift();
      if (recent.length > MAX_DIALS_PER_SECOND && !reported) {
        reported = true;
        world.violation(
          `${process} reconnects in a hot loop: ${recent.length} dials within a second`,
        );
      }
      instance.dialed?.(process);
      return transport.connect(options);
    },
  };
}
