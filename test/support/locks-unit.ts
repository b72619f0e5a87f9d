// Helpers for the lock and election unit tests on the scripted client
// (test/unit/locks/scripted-client.ts): the messages a recipe publishes on `zookeeper-ts:lock`,
// and the waits on a lease's node watch and its loss.
import diagnostics from 'node:diagnostics_channel';
import { expect, onTestFinished } from 'vitest';
import type { RecipeClient } from '../../src/index.js';
import {
  LeaderLatch,
  type LeaderLatchOptions,
  type Lease,
  type LockLostError,
} from '../../src/locks/index.js';
import type { LockMessage } from '../../src/telemetry/index.js';
import { until } from './wait.js';

/**
 * The messages published on `zookeeper-ts:lock` from now until the running test ends (those
 * `keep` accepts); the subscription ends with the test.
 */
export function lockMessages(keep: (message: LockMessage) => boolean = () => true): LockMessage[] {
  const seen: LockMessage[] = [];
  const onMessage = (message: unknown) => {
    if (keep(message as LockMessage)) seen.push(message as LockMessage);
  };
  diagnostics.subscribe('zookeeper-ts:lock', onMessage);
  onTestFinished(() => {
    diagnostics.unsubscribe('zookeeper-ts:lock', onMessage);
  });
  return seen;
}

/** The `kind` of each published message of `type`, in order. */
export function kindsOf(messages: readonly LockMessage[], type: LockMessage['type']): unknown[] {
  return messages
    .filter((message) => message.type === type)
    .map((message) => (message as { kind?: unknown }).kind);
}

/** Why a lost lease's signal aborted (the LockLostError's `reason`). */
export const lossOf = (signal: AbortSignal) => (signal.reason as LockLostError).reason;

/** The client side the waits below read: its logged requests. */
interface RequestLog {
  requests(filter: { op: 'getData'; watch: true }): readonly unknown[];
}

/** Waits until `client` has set at least `count` node watches (a lease's signal was read). */
export async function watched(client: RequestLog, count = 1): Promise<void> {
  await until(
    () => client.requests({ op: 'getData', watch: true }).length >= count,
    'the node watch',
  );
}

/**
 * Deletes a held lease's node from another session (`admin`), waits for `signal` (the lease's,
 * read before) to abort, checks the loss says 'deleted', and releases the lease.
 */
export async function expectLostToDelete(
  admin: { delete(path: string): Promise<void> },
  lease: Lease,
  signal: AbortSignal,
): Promise<void> {
  await admin.delete(lease.path);
  await until(() => signal.aborted, 'the loss');
  expect(lossOf(signal)).toBe('deleted');
  await lease.release();
}

/**
 * Checks that two acquires and their releases were published (`acquire-start`, `granted`,
 * `released`, two of each) with `kind`.
 */
export function expectTwoHoldsOfKind(messages: readonly LockMessage[], kind: string): void {
  for (const type of ['acquire-start', 'granted', 'released'] as const) {
    expect(kindsOf(messages, type), type).toEqual([kind, kind]);
  }
}

/** A LeaderLatch on `path` with `start()` called. */
export function startedLatch(
  client: RecipeClient,
  path = '/el',
  options: LeaderLatchOptions = {},
): LeaderLatch {
  const latch = new LeaderLatch(client, path, options);
  latch.start();
  return latch;
}
