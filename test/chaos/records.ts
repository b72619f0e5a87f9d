// The chaos log: one JSON object per line, written by the runner, by every in-process worker and
// by the separate worker process (on its stdout). The checker reads nothing else.
// Times are ms since the epoch with sub-ms precision (see `now`), comparable across processes.

export const LOCKS = ['mutex', 'rw', 'sem'] as const;
export type LockKind = (typeof LOCKS)[number];

/** `exclusive` (mutex), `read`/`write` (read-write lock), `lease` (semaphore). */
export type Side = 'exclusive' | 'read' | 'write' | 'lease';

export const FAULT_KINDS = [
  'kill-leader',
  'kill-follower',
  'restart-ensemble',
  'freeze-short',
  'freeze-long',
  'cut-create',
  'cut-delete',
  'cut-release',
  'cut-random',
  'delay',
  'isolate-member',
  'expire-links',
  'freeze-member',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The workload window and the parameters the checker needs. */
export interface RunRecord {
  t: 'run';
  phase: 'start' | 'stop';
  at: number;
  seed?: number;
  sessionTimeout?: number;
  maxLeases?: number;
}

/** Who held which lock, in both records of a hold. */
interface HolderFields {
  id: string;
  proc: string;
  slot: string;
  session: string;
  lock: LockKind;
  side: Side;
  /** The fencing token (czxid), decimal. */
  token: string;
  path: string;
}

/** A holder got the lock (written at once, so a holder that never reports back still counts). */
export interface AcquiredRecord extends HolderFields {
  t: 'acquired';
  at: number;
}

/** A finished hold. The holder counted itself the holder from `start` until `end`. */
export interface HoldRecord extends HolderFields {
  t: 'hold';
  start: number;
  end: number;
  /** When the lease's signal fired while held (lock possibly lost), or null if it never did. */
  signalAt: number | null;
  lossReason: string | null;
  /** Why release() rejected, if it did. */
  releaseError: string | null;
}

export interface ErrorRecord {
  t: 'error';
  proc: string;
  slot: string;
  lock?: LockKind;
  op: string;
  /** `code` of a ZooKeeperError, else the error's name. */
  code: string;
  name: string;
  message: string;
  at: number;
  /** False for anything the API does not promise (a non-ZooKeeperError, an odd code). */
  expected: boolean;
}

export interface SessionRecord {
  t: 'session';
  proc: string;
  slot: string;
  session: string;
  /** `final`: the session ended (an expiry, the client closed); `open`: a session began. */
  event: 'open' | 'final';
  state?: string;
  /** On `open`: the expired session this one renews (same client). */
  previous?: string;
  at: number;
}

export interface FaultRecord {
  t: 'fault';
  kind: FaultKind;
  target: string;
  at: number;
  healedAt: number;
  /** False for a trap (cut on the next create/delete/release) that never sprang. */
  triggered: boolean;
  detail?: string;
}

/** An interval with no serving quorum (a leader down, the whole ensemble restarting). */
export interface NoQuorumRecord {
  t: 'no-quorum';
  from: number;
  to: number;
}

/** A contender node still there after the workload stopped (`idle`) or after every client closed. */
export interface OrphanRecord {
  t: 'orphan';
  phase: 'idle' | 'closed';
  path: string;
  owner: string;
}

/** A data watch the server still holds on a lock path (from `wchp`). */
export interface WatchRecord {
  t: 'watch';
  phase: 'idle' | 'closed';
  member: number;
  path: string;
  session: string;
}

/** The largest event-loop delay a process saw over a stretch of the run (diagnostics). */
export interface LagRecord {
  t: 'lag';
  proc: string;
  at: number;
  maxMs: number;
}

/** A worker loop that did not finish when told to stop. */
export interface HungRecord {
  t: 'hung';
  proc: string;
  what: string;
  at: number;
}

export type ChaosRecord =
  | RunRecord
  | AcquiredRecord
  | HoldRecord
  | ErrorRecord
  | SessionRecord
  | FaultRecord
  | NoQuorumRecord
  | OrphanRecord
  | WatchRecord
  | LagRecord
  | HungRecord;

/** Where records go. */
export type Emit = (record: ChaosRecord) => void;

/** Wall-clock ms with sub-ms precision; on one machine, comparable between processes. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

export function toLine(record: ChaosRecord): string {
  return JSON.stringify(record);
}

const TYPES = new Set<string>([
  'run',
  'acquired',
  'hold',
  'error',
  'session',
  'fault',
  'no-quorum',
  'orphan',
  'watch',
  'lag',
  'hung',
]);

/** A record from one log line, or undefined for anything else (stray output of a child). */
export function fromLine(line: string): ChaosRecord | undefined {
  const text = line.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as { t?: unknown };
    return typeof value.t === 'string' && TYPES.has(value.t) ? (value as ChaosRecord) : undefined;
  } catch {
    return undefined;
  }
}
