// The OpenTelemetry bridge with the real OpenTelemetry SDK (in-memory readers and exporters),
// against the real server: a contended run gives the expected histogram counts, forced losses give
// loss counts with their reasons, and request and acquire spans nest under the caller's span.
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../src/index.js';
import { Mutex } from '../../../src/locks/index.js';
import { type Instrumentation, instrumentZooKeeper, MetricName } from '../../../src/otel/index.js';
import { sharedServer, TcpProxy } from '../../harness/index.js';
import { lockPath, newClient, newClients, until } from '../locks/helpers.js';

/** A reader that exports on demand: `collect()` reads every instrument now. */
class OnDemandReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const reader = new OnDemandReader();
const meterProvider = new MeterProvider({ readers: [reader] });
const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider();
tracerProvider.addSpanProcessor(new SimpleSpanProcessor(spans));
let instrumentation: Instrumentation;

beforeAll(() => {
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.metrics.setGlobalMeterProvider(meterProvider);
  api.trace.setGlobalTracerProvider(tracerProvider);
  instrumentation = instrumentZooKeeper(api);
});

afterAll(async () => {
  instrumentation.close();
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
  api.metrics.disable();
  api.trace.disable();
  api.context.disable();
});

type Point = { attributes: api.Attributes; value: unknown };

async function points(name: string): Promise<Point[]> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  return metricPoints(resourceMetrics, name);
}

function metricPoints(metrics: ResourceMetrics, name: string): Point[] {
  for (const scope of metrics.scopeMetrics)
    for (const metric of scope.metrics)
      if (metric.descriptor.name === name) return metric.dataPoints as Point[];
  return [];
}

/** The sum of a counter's points whose attributes include `match`. */
async function total(name: string, match: api.Attributes = {}): Promise<number> {
  return (await points(name))
    .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
    .reduce((sum, p) => sum + (p.value as number), 0);
}

/** The count of a histogram's points whose attributes include `match`. */
async function histogramCount(name: string, match: api.Attributes = {}): Promise<number> {
  return (await points(name))
    .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
    .reduce((sum, p) => sum + (p.value as { count: number }).count, 0);
}

describe('zookeeper-ts/otel with the OpenTelemetry SDK', () => {
  it('a contended run: one wait and one hold per acquisition, nobody left holding or waiting', async () => {
    const waitsBefore = await histogramCount(MetricName.lockWait, {
      'zookeeper.lock.outcome': 'granted',
    });
    const holdsBefore = await histogramCount(MetricName.lockHold);
    const grantsBefore = await total(MetricName.acquisitions);
    const path = lockPath();
    const clients = await newClients(4);
    const rounds = 3;
    await Promise.all(
      clients.map(async (zk) => {
        const mutex = new Mutex(zk, path);
        for (let i = 0; i < rounds; i++) {
          const lease = await mutex.acquire({ timeout: 20_000 });
          await new Promise((r) => setTimeout(r, 5));
          await lease.release();
        }
      }),
    );
    const n = clients.length * rounds;
    expect(
      (await histogramCount(MetricName.lockWait, { 'zookeeper.lock.outcome': 'granted' })) -
        waitsBefore,
    ).toBe(n);
    expect((await histogramCount(MetricName.lockHold)) - holdsBefore).toBe(n);
    expect((await total(MetricName.acquisitions)) - grantsBefore).toBe(n);
    expect(await total(MetricName.heldLocks)).toBe(0);
    expect(await total(MetricName.waiters)).toBe(0);
    // Each acquisition took at least a create, a listing and a delete.
    expect(await histogramCount(MetricName.requestDuration)).toBeGreaterThanOrEqual(3 * n);
    const unitOf = async (name: string) => {
      const { resourceMetrics } = await reader.collect();
      for (const scope of resourceMetrics.scopeMetrics)
        for (const metric of scope.metrics)
          if (metric.descriptor.name === name) return metric.descriptor.unit;
      return undefined;
    };
    expect(await unitOf(MetricName.lockWait)).toBe('s');
    expect(await unitOf(MetricName.requestDuration)).toBe('s');
  });

  it('watch events count once per notification, by event type', async () => {
    const changedBefore = await total(MetricName.watchEvents, {
      'zookeeper.watch.event_type': 'NodeDataChanged',
    });
    const deletedBefore = await total(MetricName.watchEvents, {
      'zookeeper.watch.event_type': 'NodeDeleted',
    });
    const path = lockPath('watched');
    const [watcher, writer] = (await newClients(2)) as [Client, Client];
    await writer.create2(path.slice(0, path.lastIndexOf('/')));
    await writer.create2(path);
    let fired = 0;
    // Two watchers on one node: still one notification from the server.
    await watcher.getData(path, { watch: () => fired++ });
    await watcher.exists(path, { watch: () => fired++ });
    await writer.setData(path, new Uint8Array([1]));
    await until(() => fired === 2, 'both watchers fired');
    await watcher.getData(path, { watch: () => fired++ });
    await writer.delete(path);
    await until(() => fired === 3, 'the deletion fired');
    const changed = await total(MetricName.watchEvents, {
      'zookeeper.watch.event_type': 'NodeDataChanged',
    });
    const deleted = await total(MetricName.watchEvents, {
      'zookeeper.watch.event_type': 'NodeDeleted',
    });
    expect(changed - changedBefore).toBe(1);
    expect(deleted - deletedBefore).toBe(1);
  });

  it('a timeout counts once, with its wait recorded as outcome timeout', async () => {
    const before = await total(MetricName.timeouts);
    const path = lockPath();
    const [a, b] = (await newClients(2)) as [Client, Client];
    const held = await new Mutex(a, path).acquire();
    await expect(new Mutex(b, path).acquire({ timeout: 200 })).rejects.toMatchObject({
      name: 'LockTimeoutError',
    });
    await held.release();
    expect((await total(MetricName.timeouts)) - before).toBe(1);
    expect(
      await histogramCount(MetricName.lockWait, { 'zookeeper.lock.outcome': 'timeout' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('forced losses count with their reason: deleted, then suspended (and the reconnect by server)', async () => {
    const deletedBefore = await total(MetricName.losses, {
      'zookeeper.lock.loss_reason': 'deleted',
    });
    const suspendedBefore = await total(MetricName.losses, {
      'zookeeper.lock.loss_reason': 'suspended',
    });
    const path = lockPath();
    const [a, b] = (await newClients(2)) as [Client, Client];
    const held = await new Mutex(a, path).acquire();
    const signal = held.signal;
    await b.delete(held.path);
    await until(() => signal.aborted, 'the loss by deletion');
    await held.release();
    expect(
      (await total(MetricName.losses, { 'zookeeper.lock.loss_reason': 'deleted' })) - deletedBefore,
    ).toBe(1);

    const [host, port] = sharedServer().connectString.split(':') as [string, string];
    const proxy = await TcpProxy.start(host, Number(port));
    try {
      const zk = await newClient({}, proxy.connectString);
      const lease = await new Mutex(zk, lockPath(), { lossPolicy: 'suspended' }).acquire();
      const reconnectsBefore = await total(MetricName.reconnects, {
        'server.address': proxy.connectString,
      });
      proxy.cut('rst');
      await until(() => lease.signal.aborted, 'the loss by suspension');
      await until(() => zk.state === 'connected', 'the reconnect');
      await lease.release();
      expect(
        (await total(MetricName.losses, { 'zookeeper.lock.loss_reason': 'suspended' })) -
          suspendedBefore,
      ).toBe(1);
      expect(
        (await total(MetricName.reconnects, { 'server.address': proxy.connectString })) -
          reconnectsBefore,
      ).toBe(1);
      expect(await total(MetricName.heldLocks)).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it("request and acquire spans nest under the caller's active span", async () => {
    const zk = await newClient();
    const path = lockPath();
    spans.reset();
    const tracer = api.trace.getTracer('test');
    const callerId = await tracer.startActiveSpan('caller', async (caller) => {
      await zk.exists('/');
      const lease = await new Mutex(zk, path).acquire();
      await lease.release();
      caller.end();
      return caller.spanContext().spanId;
    });
    const finished = spans.getFinishedSpans();
    const byName = (name: string) => finished.find((s) => s.name === name);
    const exists = byName('zookeeper exists');
    const acquire = byName(`zookeeper.lock.acquire ${path}`);
    expect(exists?.parentSpanId).toBe(callerId);
    expect(exists?.kind).toBe(api.SpanKind.CLIENT);
    expect(exists?.attributes).toMatchObject({
      'zookeeper.operation': 'exists',
      'zookeeper.path': '/',
      'zookeeper.result_code': 'OK',
      'server.address': zk.server,
    });
    expect(acquire?.parentSpanId).toBe(callerId);
    expect(acquire?.attributes).toMatchObject({
      'zookeeper.lock.outcome': 'granted',
      'zookeeper.lock.queue_position': 0,
      'zookeeper.lock.waited': false,
    });
    // A failed request's span carries the error status.
    await zk.getData('/no-such-node').catch(() => {});
    const failed = spans.getFinishedSpans().find((s) => s.name === 'zookeeper getData');
    expect(failed?.status.code).toBe(api.SpanStatusCode.ERROR);
    expect(failed?.attributes['zookeeper.result_code']).toBe('NONODE');
  });
});
