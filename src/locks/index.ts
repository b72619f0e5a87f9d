/**
 * Distributed lock recipes on top of the client, interoperable with Curator and kazoo.
 * @module zookeeper-ts/locks
 */

export type { RecipeClient } from '../client/recipe-client.js';
export type { BoundOptions } from '../coordination/bounded.js';
export type { NamingStyle } from '../coordination/naming.js';
export { LockName } from '../coordination/naming.js';
export type { SequenceOrder } from '../coordination/order.js';
export type {
  LatchState,
  LeaderLatchEvents,
  LeaderLatchOptions,
  Leadership,
  Participant,
} from './election-types.js';
export { LATCH_NAME } from './election-types.js';
export type { LockLossReason } from './errors.js';
export { LeaseReleasedError, LockLostError, LockTimeoutError } from './errors.js';
export { ExclusiveLock } from './exclusive.js';
export type {
  ContenderKind,
  InspectOptions,
  LockContender,
  LockInspection,
} from './inspect.js';
export { inspectLock, KAZOO_READ_NAME } from './inspect.js';
export type { FindLocksOptions, LockFolder } from './inspect-tree.js';
export { findLocks } from './inspect-tree.js';
export { LeaderLatch } from './leader-latch.js';
export type {
  LeaderObserverEvents,
  LeaderObserverOptions,
  ObservedElection,
  ObservedLeader,
} from './leader-observer.js';
export { LeaderObserver } from './leader-observer.js';
export type {
  LeaderSelectorEvents,
  LeaderSelectorOptions,
  LeaderTask,
} from './leader-selector.js';
export { LeaderSelector } from './leader-selector.js';
export type { MultiLease } from './multilock.js';
export { MultiLock } from './multilock.js';
export type { MutexOptions } from './mutex.js';
export { Mutex } from './mutex.js';
export type { RevocableAcquireOptions, RevocableLease } from './revocation.js';
export {
  REVOKE_MESSAGE,
  RevocationRequestedError,
  revoke,
  revokeNode,
  watchRevocation,
} from './revocation.js';
export type { ReadWriteLockOptions } from './rwlock.js';
export { ReadWriteLock, ReadWriteSide } from './rwlock.js';
export type { SemaphoreMutexOptions, SemaphoreOptions } from './semaphore.js';
export { Semaphore, SemaphoreMutex } from './semaphore.js';
export type {
  AcquireOptions,
  Lease,
  Lock,
  LockOptions,
  LossPolicy,
  ReentrantAcquireOptions,
} from './types.js';
export { withLock } from './with-lock.js';
