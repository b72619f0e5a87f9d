// Planted bugs: variants of the recipes' behaviour that live here, in test code, and reach the
// real recipes only through their public seams (the client a lock is given, its options, the
// transport). Each must be caught by the invariants within the CI seed budget.
import type { LockClient } from '../../src/locks/index.js';
import type { Client } from '../../src/session/client.js';
import type { World } from './world.js';

export interface Plant {
  name: string;
  description: string;
  /** The workload the bug shows in. */
  workload?: string;
  nearWrap?: boolean;
  chroot?: string;
  /** The client the lock sees. */
  wrap?(client: Client, world: World, process: string): LockClient;
}

export const plants: Record<string, Plant> = {};
