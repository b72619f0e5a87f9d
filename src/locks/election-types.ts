// The public shapes of an election (LeaderLatch, LeaderSelector, participants): options, a term of
// leadership, a participant, the latch's state, and Curator's node name for candidates.
import type { ErrorEvents } from '../client/listeners.js';
import type { Op, OpResult } from '../client/multi.js';
import type { CallOptions } from '../client/types.js';
import { LockName } from '../coordination/naming.js';
import type { LossPolicy } from './types.js';

/** The node name Curator's LeaderLatch gives its candidates (`_c_<uuid>-latch-<seq>`). */
export const LATCH_NAME = LockName.latch;

/** The events of a {@link LeaderLatch} (see `LeaderLatch.on`). */
export interface LeaderLatchEvents extends ErrorEvents {
  /** This participant became leader: the term, valid until its `signal` aborts. */
  leader: (leadership: Leadership) => void;
}

/** Options of a {@link LeaderLatch}. */
export interface LeaderLatchOptions {
  /**
   * This participant's id, stored (UTF-8) as its node's data, as Curator's LeaderLatch stores its
   * id: what `participants()` reports, here and in Curator. Default `''` (Curator's default).
   */
  id?: string;
  /** When held leadership counts as lost; see {@link LossPolicy}. Default `'suspended'`. */
  lossPolicy?: LossPolicy;
}

/** One term of leadership: valid until its `signal` aborts. */
export interface Leadership {
  /** This participant's candidate node. */
  readonly path: string;
  /**
   * The candidate node's czxid. Successive leaders of one election hold strictly increasing
   * tokens (a participant that keeps its node across a reconnect keeps its token, and nobody else
   * led in between): hand it to the resource you protect and have it refuse lower ones.
   */
  readonly fencingToken: bigint;
  /**
   * Aborted as soon as this participant can no longer be sure it leads: the connection was
   * suspended (or the session expired, see {@link LossPolicy}), its node was deleted by someone
   * else, or the latch was closed. The reason is a `LockLostError` or `LeaseReleasedError`.
   */
  readonly signal: AbortSignal;
  /** This participant's id. */
  readonly id: string;
  /**
   * A write guarded by this term: runs `ops` in one `multi` that first checks that the candidate
   * node still exists, so the server applies them only while this participant still leads, all
   * or none; rejects with the lease-lost error otherwise. The same as a lock lease's `multi`
   * (see `Lease.multi`).
   */
  multi(ops: readonly Op[], options?: CallOptions): Promise<OpResult[]>;
}

/** One participant of an election, as Curator's `Participant`. */
export interface Participant {
  /** Its id (its node's data). */
  readonly id: string;
  /** Its candidate node. */
  readonly path: string;
  /** True for the first candidate in line: the leader. */
  readonly isLeader: boolean;
}

/** `'latent'` before `start()`, `'started'`, then `'closed'` after `close()` or a fatal error. */
export type LatchState = 'latent' | 'started' | 'closed';
