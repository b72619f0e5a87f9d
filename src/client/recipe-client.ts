// What every recipe needs from a client, named once: the recipes and the lock recipes take a
// RecipeClient, so that a wrapper around a Client (one that logs or counts calls, say) implements
// one list of members, and a recipe that starts using another member of it breaks nobody.
import type { Client } from './client.js';

/**
 * The part of a {@link Client} that the recipes (`zookeeper-ts/locks`, `zookeeper-ts/recipes`)
 * use: a `Client` from `connect()` is one; so is anything with the same members. Every recipe
 * takes this one type, so the list only grows in a release that says so in the CHANGELOG.
 */
export type RecipeClient = Pick<
  Client,
  | 'create2'
  | 'delete'
  | 'exists'
  | 'getData'
  | 'getChildren'
  | 'setData'
  | 'multi'
  | 'sync'
  | 'watch'
  | 'on'
  | 'state'
  | 'closing'
  | 'sessionId'
  | 'lastZxid'
  | 'chroot'
>;
