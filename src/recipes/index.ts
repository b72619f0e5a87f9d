/**
 * Recipes beyond locks: kept nodes, caches, counters, barriers, leases, path helpers, a
 * guaranteed delete and a public retry helper.
 * @module zookeeper-ts/recipes
 */

export type { RecipeClient } from '../client/recipe-client.js';

export type {
  AtomicLongOptions,
  AtomicResult,
  AtomicStats,
  PromotedToLock,
} from './atomic-long.js';
export { DistributedAtomicLong, decodeLong, encodeLong } from './atomic-long.js';
export { DistributedBarrier } from './barrier.js';
export type { ServiceDiscoveryEvents, ServiceDiscoveryOptions } from './discovery.js';
export { ServiceDiscovery } from './discovery.js';
export type {
  ProviderStrategy,
  ServiceCacheEvents,
  ServiceCacheOptions,
  ServiceProviderOptions,
} from './discovery-cache.js';
export { ServiceCache, ServiceProvider } from './discovery-cache.js';
export type { ServiceInstance, ServiceInstanceInit } from './discovery-instance.js';
export {
  buildUri,
  decodeInstance,
  encodeInstance,
  ServiceType,
  serviceInstance,
} from './discovery-instance.js';
export type { DoubleBarrierOptions } from './double-barrier.js';
export { DistributedDoubleBarrier, READY_NODE } from './double-barrier.js';
export type {
  GuaranteedDeleteOptions,
  GuaranteedDeleteOutcome,
} from './guaranteed-delete.js';
export { guaranteedDelete } from './guaranteed-delete.js';
export type {
  GroupMemberEvents,
  GroupMemberOptions,
  Member,
  MembershipLayout,
} from './membership.js';
export { GroupMember } from './membership.js';
export { SetPartitioner } from './partitioner.js';
export type {
  PartitionFunction,
  PartitionState,
  SetPartitionerEvents,
  SetPartitionerOptions,
} from './partitioner-options.js';
export type {
  CreateWithParentsOptions,
  DeleteOutcome,
  DeleteRecursiveOptions,
  EnsurePathOptions,
} from './paths.js';
export { createWithParents, deleteRecursive, ensurePath } from './paths.js';
export type { PersistentNodeEvents, PersistentNodeOptions } from './persistent-node.js';
export { PersistentNode } from './persistent-node.js';
export type { DistributedQueueOptions, PutOptions, QueueEvents } from './queue.js';
export { DistributedQueue } from './queue.js';
export type { QueueLayout } from './queue-entries.js';
export { decodeCuratorItems, encodeCuratorItems } from './queue-entries.js';
export type { LockingQueueEvents, LockingQueueOptions } from './queue-locking.js';
export { LOCKING_QUEUE_NODES, LockingQueue } from './queue-locking.js';
export type { TakenEntryPlace } from './queue-taken.js';
export { TakenEntry } from './queue-taken.js';
export type { RetryInfo, RetryPolicy } from './retry.js';
export { backoffDelay, isRetriedBy, pause, RETRIED_BY_DEFAULT, retry } from './retry.js';
export type { SharedCountEvents, SharedCountOptions, VersionedCount } from './shared-count.js';
export { decodeCount, encodeCount, SharedCount } from './shared-count.js';
export type { SharedValueEvents, SharedValueOptions, VersionedValue } from './shared-value.js';
export { SharedValue } from './shared-value.js';
export type { TimeLeaseGrant, TimeLeaseHolder, TimeLeaseOptions } from './time-lease.js';
export { LEASE_HOLDER_NODE, TimeLease } from './time-lease.js';
export { TreeCache } from './tree-cache.js';
export type {
  CachedNode,
  TreeCacheEvent,
  TreeCacheEventOf,
  TreeCacheEvents,
  TreeCacheOptions,
} from './tree-cache-types.js';
export type { WaitOptions } from './wait.js';
