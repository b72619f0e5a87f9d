// With nobody listening the publish points build nothing: no acquire probe, no hold clock, no
// request context. With a subscriber they do.
import diagnostics from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { acquireStarted, holdStarted, lockTraced } from '../../../src/telemetry/lock.js';
import { ChannelName } from '../../../src/telemetry/names.js';
import { requestTraced } from '../../../src/telemetry/request.js';
import { nativeChannels } from '../../../src/telemetry/resolve.js';

describe('telemetry guards', () => {
  it('Node publishes on its own diagnostics_channel', () => {
    expect(nativeChannels).toBe(true);
  });

  it('no subscriber: no probe, no clock read, no request tracing', () => {
    expect(lockTraced()).toBe(false);
    expect(requestTraced()).toBe(false);
    expect(acquireStarted('/lock', 'lock-', 1n)).toBeUndefined();
    expect(holdStarted()).toBe(0);
  });

  it('a subscriber on Node’s own channel turns them on, and off again when it leaves', () => {
    const seen: unknown[] = [];
    const listener = (message: unknown) => seen.push(message);
    diagnostics.subscribe(ChannelName.lock, listener);
    const handlers = { asyncEnd: () => {} };
    const requests = diagnostics.tracingChannel(ChannelName.request);
    requests.subscribe(handlers as never);
    try {
      expect(lockTraced()).toBe(true);
      expect(requestTraced()).toBe(true);
      const probe = acquireStarted('/lock', 'lock-', 1n);
      expect(probe).toMatchObject({ lockPath: '/lock', kind: 'lock-', queuePosition: undefined });
      expect(seen).toEqual([
        {
          type: 'acquire-start',
          acquireId: probe!.acquireId,
          lockPath: '/lock',
          kind: 'lock-',
          sessionId: 1n,
        },
      ]);
      expect(holdStarted()).toBeGreaterThan(0);
    } finally {
      diagnostics.unsubscribe(ChannelName.lock, listener);
      requests.unsubscribe(handlers as never);
    }
    expect(lockTraced()).toBe(false);
    expect(requestTraced()).toBe(false);
  });
});
