// Publishing lock and election events on `zookeeper-ts:lock`. An acquire gets a probe only when
// someone listens (`acquireStarted` returns undefined otherwise); every other function checks for
// a subscriber before it builds its message.
import type { LockMessage } from './messages.js';
import { ChannelName } from './names.js';
import { channel } from './resolve.js';

const locks = channel(ChannelName.lock);

let lastAcquireId = 0;

/** One traced acquire: what its end message reports. */
export interface AcquireProbe {
  readonly acquireId: number;
  readonly lockPath: string;
  readonly kind: string;
  readonly startTime: number;
  queuePosition: number | undefined;
  waited: boolean;
}

/** Whether anyone listens to lock events. */
export function lockTraced(): boolean {
  return locks.hasSubscribers;
}

/** An acquire began: its probe, or undefined when nobody listens. */
export function acquireStarted(
  lockPath: string,
  kind: string,
  sessionId: bigint,
): AcquireProbe | undefined {
  if (!locks.hasSubscribers) return undefined;
  const probe: AcquireProbe = {
    acquireId: ++lastAcquireId,
    lockPath,
    kind,
    startTime: performance.now(),
    queuePosition: undefined,
    waited: false,
  };
  publish({ type: 'acquire-start', acquireId: probe.acquireId, lockPath, kind, sessionId });
  return probe;
}

/** The acquire read its place: `ahead` contenders it waits for (the first reading is the entry). */
export function acquirePlaced(probe: AcquireProbe | undefined, ahead: number): void {
  if (!probe) return;
  probe.queuePosition ??= ahead;
  if (ahead > 0) probe.waited = true;
}

/**
 * Reports how `acquiring` ends (granted, timeout, aborted, failed) and hands it back unchanged.
 * `signal` tells an abort by the caller from other errors.
 */
export function acquireSettles<T extends { path: string } | null>(
  probe: AcquireProbe | undefined,
  acquiring: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (!probe) return acquiring;
  acquiring.then(
    (lease) => acquireEnded(probe, lease === null ? 'timeout' : 'granted', lease?.path, undefined),
    (error: unknown) =>
      acquireEnded(
        probe,
        isTimeout(error) ? 'timeout' : signal?.aborted ? 'aborted' : 'failed',
        undefined,
        error,
      ),
  );
  return acquiring;
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'LockTimeoutError';
}

function acquireEnded(
  probe: AcquireProbe,
  type: 'granted' | 'timeout' | 'aborted' | 'failed',
  node: string | undefined,
  error: unknown,
): void {
  publish({
    type,
    acquireId: probe.acquireId,
    lockPath: probe.lockPath,
    kind: probe.kind,
    waitTime: performance.now() - probe.startTime,
    queuePosition: probe.queuePosition,
    waited: probe.waited,
    node,
    error,
  });
}

/** When a hold began, for its hold time: 0 when nobody listened then (no time is read). */
export function holdStarted(): number {
  return locks.hasSubscribers ? performance.now() : 0;
}

/** A held node ended: released (by its last lease) or lost (`reason`). */
export function holdEnded(
  held: { lockPath: string; path: string; kind: string },
  since: number,
  type: 'released' | 'lost',
  reason: string | undefined,
  afterLoss = false,
): void {
  if (!locks.hasSubscribers) return;
  publish({
    type,
    lockPath: held.lockPath,
    node: held.path,
    kind: held.kind,
    holdTime: since === 0 ? 0 : performance.now() - since,
    reason,
    afterLoss,
  });
}

/** Leadership gained or lost, or a revocation requested of the holder of `node`. */
export function electionEvent(
  type: 'leader-gained' | 'leader-lost' | 'revocation-requested',
  lockPath: string,
  node: string,
  reason?: string,
): void {
  if (!locks.hasSubscribers) return;
  publish({ type, lockPath, node, reason });
}

function publish(message: LockMessage): void {
  locks.publish(message);
}
