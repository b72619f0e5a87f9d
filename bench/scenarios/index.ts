// Every scenario, in the order a run takes them.
import type { Scenario } from '../types.js';
import { ceiling } from './ceiling.js';
import { heap, idleSessions } from './heap.js';
import { manyPaths } from './many-paths.js';
import { mutex } from './mutex.js';
import { raw } from './raw.js';
import { exclusive, rwlock, semaphore } from './recipes.js';
import { scale } from './scale.js';
import { size } from './size.js';

export const SCENARIOS: readonly Scenario[] = [
  size,
  raw,
  ceiling,
  mutex,
  manyPaths,
  rwlock,
  semaphore,
  exclusive,
  heap,
  scale,
  idleSessions,
];

/** Scenarios that need no ZooKeeper. */
export const OFFLINE = new Set(['size']);
/** Scenarios with Java baselines. */
export const USES_JAVA = new Set(['raw', 'ceiling', 'mutex']);
