// One slot of the workload: one logical client, one `Client` for the whole run, carrying on
// through session renewals. Its opens, expiries and renewals go to the log.
import { type Client, connect } from '../../src/index.js';
import type { RecipeClient } from '../../src/locks/index.js';
import { errorRecord, hexId, pause } from './basics.js';
import { now } from './records.js';
import type { WorkloadConfig } from './workload.js';

export interface SlotConfig {
  name: string;
  connectString: string;
  /** What the locks talk to (a trap wrapper); the client itself by default. */
  wrap?: (client: Client, held: ReadonlySet<string>) => RecipeClient;
}

/**
 * One logical client: one `Client` for the slot's whole life. An expiry does not end it: the
 * client renews its session and the slot's loops carry on (each expiry and renewal is logged).
 * Only a client that ended for good (an expiry with renewal off) leaves the slot idle.
 */
export class SessionSlot {
  /** Lock nodes this slot holds right now (a delete of one is a release). */
  readonly held = new Set<string>();
  private current: { client: Client; locks: RecipeClient } | undefined;
  private connecting: Promise<{ client: Client; locks: RecipeClient }> | undefined;
  private readonly all: Client[] = [];

  constructor(
    private readonly config: SlotConfig,
    private readonly workload: Pick<
      WorkloadConfig,
      'proc' | 'sessionTimeout' | 'emit' | 'renewSession'
    >,
  ) {}

  get name(): string {
    return this.config.name;
  }

  private get renewing(): boolean {
    return this.workload.renewSession ?? true;
  }

  /** The slot's client (connected first if need be); waits for `signal` once it ended for good. */
  async client(signal: AbortSignal): Promise<{ client: Client; locks: RecipeClient }> {
    if (this.current) {
      if (!isOver(this.current.client.state, this.renewing)) return this.current;
      // Ended for good: no new client behind its back. The loops idle until the run stops.
      await pause(2_147_483_647, signal);
      throw signal.reason;
    }
    this.connecting ??= this.connect(signal).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(signal: AbortSignal): Promise<{ client: Client; locks: RecipeClient }> {
    const { proc, sessionTimeout, emit } = this.workload;
    for (;;) {
      if (signal.aborted) throw signal.reason;
      try {
        const client = await connect(this.config.connectString, {
          sessionTimeout,
          connectTimeout: 2 * sessionTimeout,
          renewSession: this.renewing,
        });
        this.all.push(client);
        let session = hexId(client.sessionId);
        emit({ t: 'session', proc, slot: this.name, session, event: 'open', at: now() });
        // Every session's end is logged with its own id; a renewal opens the next one.
        const offState = client.on('state', (state) => {
          if (state !== 'expired' && !isOver(state, this.renewing)) return;
          emit({ t: 'session', proc, slot: this.name, session, event: 'final', state, at: now() });
          if (isOver(state, this.renewing)) {
            offState();
            offRenewed();
          }
        });
        const offRenewed = client.on('renewed', ({ previousSessionId, sessionId }) => {
          session = hexId(sessionId);
          emit({
            t: 'session',
            proc,
            slot: this.name,
            session,
            event: 'open',
            previous: hexId(previousSessionId),
            at: now(),
          });
        });
        const locks = this.config.wrap ? this.config.wrap(client, this.held) : client;
        this.current = { client, locks };
        return this.current;
      } catch (error) {
        emit(errorRecord(proc, this.name, undefined, 'connect', error));
        await pause(300, signal);
      }
    }
  }

  /** Closes every client this slot ever opened (idempotent). */
  async close(): Promise<void> {
    await Promise.all(this.all.map((c) => c.close().catch(() => {})));
  }
}

/** A client that will never have a session again (`expired` is final only without renewal). */
function isOver(state: string, renewing: boolean): boolean {
  return state === 'closed' || state === 'auth-failed' || (state === 'expired' && !renewing);
}
