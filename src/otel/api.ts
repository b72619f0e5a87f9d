// The part of `@opentelemetry/api` the bridge uses, written out structurally: the bridge takes the
// user's own API object as an argument, so the package neither imports nor depends on it (a real
// `@opentelemetry/api` object fits these shapes).

/** Attribute values as OpenTelemetry takes them. */
export type OtelAttributes = Record<string, string | number | boolean | undefined>;

/** An opaque OpenTelemetry context. */
export type OtelContext = object;

/** A histogram (`Meter.createHistogram`). */
export interface OtelHistogram {
  record(value: number, attributes?: OtelAttributes): void;
}

/** A counter or up-down counter (`Meter.createCounter`, `createUpDownCounter`). */
export interface OtelCounter {
  add(value: number, attributes?: OtelAttributes): void;
}

/** Options of an instrument. */
export interface OtelInstrumentOptions {
  description?: string;
  unit?: string;
}

/** A meter (`metrics.getMeter(...)`). */
export interface OtelMeter {
  createHistogram(name: string, options?: OtelInstrumentOptions): OtelHistogram;
  createCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
  createUpDownCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
}

/** A span (only what the bridge calls). */
export interface OtelSpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error | string): void;
  end(endTime?: number): void;
}

/** A tracer (`trace.getTracer(...)`). */
export interface OtelTracer {
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: OtelAttributes; startTime?: number },
    context?: OtelContext,
  ): OtelSpan;
}

/** The `@opentelemetry/api` module, as far as the bridge needs it. */
export interface OpenTelemetryApi {
  metrics: { getMeter(name: string, version?: string): OtelMeter };
  trace: { getTracer(name: string, version?: string): OtelTracer };
  context: { active(): OtelContext };
}

/** `SpanKind.CLIENT` and `INTERNAL` (numbers fixed by the OpenTelemetry API). */
export const SpanKindValue = { internal: 0, client: 2 } as const;

/** `SpanStatusCode.ERROR` (fixed by the OpenTelemetry API). */
export const SPAN_STATUS_ERROR = 2;
