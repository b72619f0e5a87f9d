/**
 * Recipes beyond locks: path helpers, a guaranteed delete and a public retry helper.
 * @module zookeeper-ts/recipes
 */

export type {
  GuaranteedDeleteClient,
  GuaranteedDeleteOptions,
  GuaranteedDeleteOutcome,
} from './guaranteed-delete.js';
export { guaranteedDelete } from './guaranteed-delete.js';
export type {
  CreateWithParentsOptions,
  DeleteRecursiveOptions,
  EnsurePathOptions,
  PathClient,
} from './paths.js';
export { createWithParents, deleteRecursive, ensurePath } from './paths.js';
export type { RetryInfo, RetryPolicy } from './retry.js';
export { backoffDelay, isRetriedBy, pause, RETRIED_BY_DEFAULT, retry } from './retry.js';
