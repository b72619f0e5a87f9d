// Events to OpenTelemetry: the library's channels subscribed, each message turned into metrics
// and, for requests and acquires, spans started in the caller's active context (the start
// messages are published synchronously inside the caller's call, where that context is current).
import type {
  LockAcquireEndMessage,
  LockMessage,
  RequestMessage,
  SessionMessage,
  WatchEventMessage,
} from '../telemetry/messages.js';
import { ChannelName } from '../telemetry/names.js';
import type { TracingHandlers } from '../telemetry/portable.js';
import { channel, tracingChannel } from '../telemetry/resolve.js';
import {
  type OpenTelemetryApi,
  type OtelAttributes,
  type OtelSpan,
  type OtelTracer,
  SPAN_STATUS_ERROR,
  SpanKindValue,
} from './api.js';
import { makeInstruments } from './metrics.js';

/** Options of {@link instrumentZooKeeper}. */
export interface InstrumentOptions {
  /** Record metrics (default true). */
  metrics?: boolean;
  /** Make spans for requests and acquires (default true). */
  spans?: boolean;
}

/** What {@link instrumentZooKeeper} returns: how to stop. */
export interface Instrumentation {
  /** Unsubscribes from the channels: nothing more is recorded. */
  close(): void;
}

const SCOPE = 'zookeeper-ts';

/**
 * Subscribes to the library's channels and records OpenTelemetry metrics and spans through `api`
 * (the application's `@opentelemetry/api` module: `import * as api from '@opentelemetry/api'`).
 */
export function instrumentZooKeeper(
  api: OpenTelemetryApi,
  options: InstrumentOptions = {},
): Instrumentation {
  const instruments =
    options.metrics === false ? undefined : makeInstruments(api.metrics.getMeter(SCOPE));
  const tracer = options.spans === false ? undefined : api.trace.getTracer(SCOPE);
  const requestSpans = new WeakMap<RequestMessage, OtelSpan>();
  const acquireSpans = new Map<number, OtelSpan>();

  const requests: TracingHandlers<RequestMessage> = {
    start: (message) => {
      if (tracer) requestSpans.set(message, startRequestSpan(tracer, api, message));
    },
    asyncEnd: (message) => {
      const attributes = requestAttributes(message);
      instruments?.requestDuration.record((message.duration ?? 0) / 1000, attributes);
      const span = requestSpans.get(message);
      if (!span) return;
      requestSpans.delete(message);
      span.setAttribute('zookeeper.result_code', message.resultCode ?? 'ERROR');
      if (message.server) span.setAttribute('server.address', message.server);
      if (message.bytesReceived !== undefined)
        span.setAttribute('zookeeper.bytes_received', message.bytesReceived);
      if (message.resultCode !== 'OK') endWithError(span, message.error);
      else span.end();
    },
  };
  const onSession = (raw: unknown) => {
    const message = raw as SessionMessage;
    if (!instruments) return;
    if (message.type === 'connect' && message.reconnect) {
      instruments.reconnects.add(1, { 'server.address': message.server });
    } else if (message.type === 'state' && message.state === 'expired') {
      instruments.expirations.add(1);
    }
  };
  const onLock = (raw: unknown) => {
    const message = raw as LockMessage;
    switch (message.type) {
      case 'acquire-start': {
        instruments?.waiters.add(1, { 'zookeeper.lock.kind': message.kind });
        if (tracer) {
          const span = tracer.startSpan(
            `zookeeper.lock.acquire ${message.lockPath}`,
            {
              kind: SpanKindValue.internal,
              attributes: {
                'zookeeper.lock.path': message.lockPath,
                'zookeeper.lock.kind': message.kind,
              },
            },
            api.context.active(),
          );
          acquireSpans.set(message.acquireId, span);
        }
        return;
      }
      case 'granted':
      case 'timeout':
      case 'aborted':
      case 'failed':
        acquireEnded(message);
        return;
      case 'released':
      case 'lost': {
        const attributes: OtelAttributes = { 'zookeeper.lock.kind': message.kind };
        if (message.type === 'lost') {
          instruments?.losses.add(1, {
            ...attributes,
            'zookeeper.lock.loss_reason': message.reason,
          });
        }
        if (message.type === 'lost' || !message.afterLoss) {
          instruments?.heldLocks.add(-1, attributes);
          instruments?.lockHold.record(message.holdTime / 1000, attributes);
        }
        return;
      }
      default:
        return;
    }
  };
  const acquireEnded = (message: LockAcquireEndMessage) => {
    const attributes: OtelAttributes = {
      'zookeeper.lock.kind': message.kind,
      'zookeeper.lock.outcome': message.type,
    };
    instruments?.waiters.add(-1, { 'zookeeper.lock.kind': message.kind });
    instruments?.lockWait.record(message.waitTime / 1000, attributes);
    if (message.type === 'granted') {
      instruments?.acquisitions.add(1, { 'zookeeper.lock.kind': message.kind });
      instruments?.heldLocks.add(1, { 'zookeeper.lock.kind': message.kind });
    } else if (message.type === 'timeout') {
      instruments?.timeouts.add(1, { 'zookeeper.lock.kind': message.kind });
    }
    const span = acquireSpans.get(message.acquireId);
    if (!span) return;
    acquireSpans.delete(message.acquireId);
    span.setAttribute('zookeeper.lock.outcome', message.type);
    span.setAttribute('zookeeper.lock.waited', message.waited);
    if (message.queuePosition !== undefined)
      span.setAttribute('zookeeper.lock.queue_position', message.queuePosition);
    if (message.node) span.setAttribute('zookeeper.lock.node', message.node);
    if (message.type === 'granted') span.end();
    else endWithError(span, message.error);
  };

  const requestChannel = tracingChannel<RequestMessage>(ChannelName.request);
  const sessionChannel = channel(ChannelName.session);
  const lockChannel = channel(ChannelName.lock);
  const watchChannel = channel(ChannelName.watch);
  const onWatch = (raw: unknown) => {
    const message = raw as WatchEventMessage;
    instruments?.watchEvents.add(1, { 'zookeeper.watch.event_type': message.eventType });
  };
  requestChannel.subscribe(requests);
  sessionChannel.subscribe(onSession);
  lockChannel.subscribe(onLock);
  // Only for the metric: without it, no message is built for each notification.
  if (instruments) watchChannel.subscribe(onWatch);
  return {
    close() {
      requestChannel.unsubscribe(requests);
      sessionChannel.unsubscribe(onSession);
      lockChannel.unsubscribe(onLock);
      if (instruments) watchChannel.unsubscribe(onWatch);
      for (const span of acquireSpans.values()) span.end();
      acquireSpans.clear();
    },
  };
}

function requestAttributes(message: RequestMessage): OtelAttributes {
  return {
    'zookeeper.operation': message.op,
    'zookeeper.result_code': message.resultCode ?? 'ERROR',
  };
}

function startRequestSpan(
  tracer: OtelTracer,
  api: OpenTelemetryApi,
  message: RequestMessage,
): OtelSpan {
  const attributes: OtelAttributes = {
    'zookeeper.operation': message.op,
    'zookeeper.xid': message.xid,
    'zookeeper.bytes_sent': message.bytesSent,
  };
  if (message.path !== undefined) attributes['zookeeper.path'] = message.path;
  if (message.server) attributes['server.address'] = message.server;
  return tracer.startSpan(
    `zookeeper ${message.op}`,
    { kind: SpanKindValue.client, attributes },
    api.context.active(),
  );
}

function endWithError(span: OtelSpan, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  const text = error instanceof Error ? error.message : String(error);
  span.setStatus({ code: SPAN_STATUS_ERROR, message: text });
  span.end();
}
