// `zookeeper-ts/otel`: the library's events as OpenTelemetry metrics and spans, through the
// application's own `@opentelemetry/api` (passed in; never imported here), and the channels the
// library publishes on, for instrumentations of their own (the runtime's diagnostics_channel, or
// the portable channels where it has none).

export type {
  ChannelListener,
  PublishChannel,
  PublishTracingChannel,
  TracingHandlers,
} from '../telemetry/portable.js';
export { channel, nativeChannels, tracingChannel } from '../telemetry/resolve.js';
export type {
  OpenTelemetryApi,
  OtelAttributes,
  OtelContext,
  OtelCounter,
  OtelHistogram,
  OtelInstrumentOptions,
  OtelMeter,
  OtelSpan,
  OtelTracer,
} from './api.js';
export { type Instrumentation, type InstrumentOptions, instrumentZooKeeper } from './bridge.js';
export { MetricName } from './metrics.js';
