// The pieces the recipe and lock catalog (catalog-recipes.ts) builds its entries from: making a
// class in the contract's form whatever its types say, holding a lock from the other session,
// stalled starts, a lock's lease. Classes are built and called without their own types
// (`contract`, `call`), so a class that has not reached the contract's form yet fails its checks
// instead of the catalog's type check.
import type { RecipeClient } from '../../../../src/client/recipe-client.js';
import * as lockExports from '../../../../src/locks/index.js';
import * as recipeExports from '../../../../src/recipes/index.js';
import { call } from './bench.js';
import type { Ctx, EventSpec, Loose, SingleOperation, WaitSpec } from './kinds.js';

const exported: Record<string, unknown> = { ...lockExports, ...recipeExports };

/** `new <name>(client, path, options)`, the contract's form, whatever the class's types say. */
export function contract(name: string, client: RecipeClient, path: string, options = {}): Loose {
  const cls = exported[name] as new (c: RecipeClient, p: string, o: object) => Loose;
  return new cls(client, path, options);
}

/** Something the other session holds while the subject waits; given back when the check ends. */
export async function holdOther(ctx: Ctx, lock: Loose, side?: 'read' | 'write'): Promise<void> {
  const target = side === undefined ? lock : (lock[side] as Loose);
  const lease = (await call(target, 'acquire')) as Loose;
  ctx.defer(() => call(lease, 'release'));
}

/** start() on a server that stopped answering: it cannot resolve in time. */
export const startStalled: WaitSpec = {
  name: 'start',
  block: async ({ control }) => control.stall(),
  call: (subject, bounds) => call(subject, 'start', bounds),
};

/** start()'s first event: it happens while start() runs. */
export const onStart = (name: string): EventSpec => ({
  name,
  trigger: async ({ subject }) => {
    await call(subject, 'start');
  },
});

/** A lock's acquire() while the other session holds the same lock. */
export function acquireHeld(name: string, options: object = {}): WaitSpec {
  return {
    name: 'acquire',
    block: (ctx) => holdOther(ctx, contract(name, ctx.env.other, ctx.path, options)),
    call: (subject, bounds) => call(subject, 'acquire', bounds),
  };
}

/** A lock's lease, taken: `await using` must delete its node. */
export async function leaseOf(ctx: Ctx, lock: Loose = ctx.subject) {
  const lease = (await call(lock, 'acquire')) as Loose & AsyncDisposable;
  return { held: lease, nodes: [lease.path as string] };
}

/** Waits forever for its signal: a selector's task that leads until it is closed. */
export const leadUntilClosed = ({ signal }: { signal: AbortSignal }) =>
  new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

export const lockLike = (
  entry: 'zookeeper-ts/locks',
  name: string,
  options: object,
  badOptions: object,
): SingleOperation => ({
  kind: 'single-operation',
  entry,
  options: () => options,
  badOptions,
  waits: [acquireHeld(name, options)],
  hold: (ctx) => leaseOf(ctx),
});
