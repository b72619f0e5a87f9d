// The portable channels (runtimes without node:diagnostics_channel) behave as Node's do for what
// the library and its subscribers use: hasSubscribers, isolation from throwing subscribers, and
// the tracing channel's order of events and fields.
import diagnostics from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { portableChannel, portableTracingChannel } from '../../../src/telemetry/portable.js';

type Context = { id: number; result?: unknown; error?: unknown };

/** Runs the same scenario on a tracing channel and returns the events as seen by a subscriber. */
async function traceEvents(channel: {
  subscribe(handlers: object): void;
  unsubscribe(handlers: object): boolean;
  tracePromise<T>(fn: () => Promise<T>, context: Context): Promise<T>;
}): Promise<string[]> {
  const seen: string[] = [];
  const record = (event: string) => (m: Context) =>
    seen.push(`${event} ${m.id} ${String(m.result)} ${String((m.error as Error)?.message)}`);
  const handlers = {
    start: record('start'),
    end: record('end'),
    asyncStart: record('asyncStart'),
    asyncEnd: record('asyncEnd'),
    error: record('error'),
  };
  channel.subscribe(handlers);
  await channel.tracePromise(async () => 'value', { id: 1 });
  await channel
    .tracePromise(async () => Promise.reject(new Error('nope')), { id: 2 })
    .catch(() => {});
  channel.unsubscribe(handlers);
  await channel.tracePromise(async () => 'unheard', { id: 3 });
  return seen;
}

describe('portable channels', () => {
  it('hasSubscribers follows subscribe and unsubscribe; one channel per name', () => {
    const channel = portableChannel('test:a');
    expect(portableChannel('test:a')).toBe(channel);
    expect(channel.hasSubscribers).toBe(false);
    const listener = () => {};
    channel.subscribe(listener);
    expect(channel.hasSubscribers).toBe(true);
    expect(channel.unsubscribe(listener)).toBe(true);
    expect(channel.hasSubscribers).toBe(false);
  });

  it('a throwing subscriber neither stops the publisher nor the next subscriber', async () => {
    const channel = portableChannel('test:b');
    const heard: unknown[] = [];
    const thrown: unknown[] = [];
    const onError = (error: unknown) => thrown.push(error);
    process.prependListener('uncaughtException', onError);
    const boom = () => {
      throw new Error('subscriber bug');
    };
    const listen = (m: unknown) => heard.push(m);
    channel.subscribe(boom);
    channel.subscribe(listen);
    try {
      channel.publish('hello');
      await new Promise((resolve) => setTimeout(resolve, 0));
    } finally {
      channel.unsubscribe(boom);
      channel.unsubscribe(listen);
      process.removeListener('uncaughtException', onError);
    }
    expect(heard).toEqual(['hello']);
    expect(thrown).toHaveLength(1);
  });

  it('the tracing channel publishes what Node publishes, in the same order', async () => {
    const portable = await traceEvents(portableTracingChannel<Context>('test:c'));
    const node = await traceEvents(
      diagnostics.tracingChannel('test:c-node') as unknown as Parameters<typeof traceEvents>[0],
    );
    expect(portable).toEqual(node);
    expect(portable).toEqual([
      'start 1 undefined undefined',
      'end 1 undefined undefined',
      'asyncStart 1 value undefined',
      'asyncEnd 1 value undefined',
      'start 2 undefined undefined',
      'end 2 undefined undefined',
      'error 2 undefined nope',
      'asyncStart 2 undefined nope',
      'asyncEnd 2 undefined nope',
    ]);
  });
});
