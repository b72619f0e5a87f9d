// The bridge's instruments: names and units in the OpenTelemetry semantic-convention style
// (dotted lower-case names, durations in seconds, `{unit}` annotations for counts).
import type { OtelCounter, OtelHistogram, OtelMeter } from './api.js';

/** The metric names the bridge records (see docs/observability.md). */
export const MetricName = {
  /** Histogram, s: request durations, by operation and result code. */
  requestDuration: 'zookeeper.client.operation.duration',
  /** Histogram, s: from acquire to its grant, timeout or abort, by kind and outcome. */
  lockWait: 'zookeeper.lock.wait.duration',
  /** Histogram, s: from grant to release or loss, by kind. */
  lockHold: 'zookeeper.lock.hold.duration',
  /** Counter: locks granted, by kind. */
  acquisitions: 'zookeeper.lock.acquisitions',
  /** Counter: acquires that timed out, by kind. */
  timeouts: 'zookeeper.lock.timeouts',
  /** Counter: held locks lost, by kind and reason. */
  losses: 'zookeeper.lock.losses',
  /** Up-down counter: locks held now, by kind. */
  heldLocks: 'zookeeper.lock.held',
  /** Up-down counter: acquires waiting now, by kind. */
  waiters: 'zookeeper.lock.waiters',
  /** Counter: connections after a session's first, by server. */
  reconnects: 'zookeeper.session.reconnects',
  /** Counter: sessions expired. */
  expirations: 'zookeeper.session.expirations',
  /** Counter: watch events the server sent, by event type. */
  watchEvents: 'zookeeper.watch.events',
} as const;

export interface Instruments {
  requestDuration: OtelHistogram;
  lockWait: OtelHistogram;
  lockHold: OtelHistogram;
  acquisitions: OtelCounter;
  timeouts: OtelCounter;
  losses: OtelCounter;
  heldLocks: OtelCounter;
  waiters: OtelCounter;
  reconnects: OtelCounter;
  expirations: OtelCounter;
  watchEvents: OtelCounter;
}

export function makeInstruments(meter: OtelMeter): Instruments {
  return {
    requestDuration: meter.createHistogram(MetricName.requestDuration, {
      description: 'Duration of ZooKeeper requests, from the call to the reply',
      unit: 's',
    }),
    lockWait: meter.createHistogram(MetricName.lockWait, {
      description: 'Time from an acquire call to its grant, timeout or abort',
      unit: 's',
    }),
    lockHold: meter.createHistogram(MetricName.lockHold, {
      description: 'Time a lock was held, from the grant to the release or loss',
      unit: 's',
    }),
    acquisitions: meter.createCounter(MetricName.acquisitions, {
      description: 'Locks granted',
      unit: '{acquisition}',
    }),
    timeouts: meter.createCounter(MetricName.timeouts, {
      description: 'Acquires that timed out',
      unit: '{timeout}',
    }),
    losses: meter.createCounter(MetricName.losses, {
      description: 'Held locks lost, by reason',
      unit: '{loss}',
    }),
    heldLocks: meter.createUpDownCounter(MetricName.heldLocks, {
      description: 'Locks held now',
      unit: '{lock}',
    }),
    waiters: meter.createUpDownCounter(MetricName.waiters, {
      description: 'Acquires waiting now',
      unit: '{waiter}',
    }),
    reconnects: meter.createCounter(MetricName.reconnects, {
      description: 'Connections after the first (the same session or a renewed one), by server',
      unit: '{reconnect}',
    }),
    expirations: meter.createCounter(MetricName.expirations, {
      description: 'Sessions that expired',
      unit: '{expiration}',
    }),
    watchEvents: meter.createCounter(MetricName.watchEvents, {
      description: 'Watch events the server sent, by event type (one per notification)',
      unit: '{event}',
    }),
  };
}
