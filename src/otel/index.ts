// `zookeeper-ts/otel`: the library's events as OpenTelemetry metrics and spans, through the
// application's own `@opentelemetry/api` (passed in; never imported here).
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
