// Planted bugs for the guarded-writes workload (workloads-guarded.ts), through the one seam the
// recipes have: the client they are given.
import type { Client } from '../../src/client/client.js';
import type { Op, OpResult } from '../../src/client/multi.js';
import type { RecipeClient } from '../../src/locks/index.js';
import { clientWith } from './plant-kit.js';
import type { Plant } from './plants.js';

/**
 * `client` whose multi leaves out the existence checks in front of the ops (the guard) and answers
 * them as passed: the write goes whether the lock node is there or not.
 */
function guardDropped(client: Client): Client {
  const multi = async (ops: readonly Op[], options?: Parameters<Client['multi']>[1]) => {
    let checks = 0;
    while (ops[checks]?.type === 'check') checks++;
    const results = await client.multi(ops.slice(checks), options);
    const passed: OpResult[] = Array.from({ length: checks }, () => ({ type: 'check' }));
    return [...passed, ...results];
  };
  return clientWith(client, { multi });
}

/**
 * `client` whose losses of contact the recipes never hear of: the `suspended` and `connecting`
 * states are left out of its state events and read as `connected`.
 */
function suspensionHidden(client: Client): Client {
  const hidden = (state: string) => state === 'suspended' || state === 'connecting';
  const on = ((event: string, listener: (...args: unknown[]) => void) =>
    event === 'state'
      ? client.on('state', (state, change) => {
          if (!hidden(state)) listener(state, change);
        })
      : client.on(event as 'closing', listener)) as Client['on'];
  return clientWith(client, (prop, target) => {
    if (prop === 'on') return on;
    if (prop === 'state') return hidden(target.state) ? 'connected' : target.state;
    return undefined;
  });
}

export const guardedPlants: Record<string, Plant> = {
  'guard-dropped': {
    name: 'guard-dropped',
    description:
      "a lease's or a term's guarded multi is sent without its existence check of the lock node (the guard): a write the holder sent while its node was being deleted lands after the deletion",
    workload: 'guarded',
    wrap: (client) => guardDropped(client) as RecipeClient,
  },
  'lease-hears-no-suspension': {
    name: 'lease-hears-no-suspension',
    description:
      'the locks never hear that the connection was suspended (the state events leave it out): a lease whose signal nobody reads is not lost at the loss of contact',
    workload: 'guarded',
    wrap: (client) => suspensionHidden(client) as RecipeClient,
  },
};
