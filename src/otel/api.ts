// The part of `@opentelemetry/api` the bridge uses, written out structurally: the bridge takes the
// user's own API object as an argument, so the package neither imports nor depends on it (a real
// `@opentelemetry/api` object fits these shapes).

/** Attribute values as OpenTelemetry takes them. */
export type OtelAttributes = Record<string, string | number | boolean | undefined>;

/** An opaque OpenTelemetry context. */
export type OtelContext = object;

/** A histogram (`Meter.createHistogram`). */
export interface OtelHistogram {
  /** Records one value. */
  record(value: number, attributes?: OtelAttributes): void;
}

/** A counter or up-down counter (`Meter.createCounter`, `createUpDownCounter`). */
export interface OtelCounter {
  /** Adds `value` (negative for an up-down counter going down). */
  add(value: number, attributes?: OtelAttributes): void;
}

/** Options of an instrument. */
export interface OtelInstrumentOptions {
  /** What the instrument measures. */
  description?: string;
  /** Its unit (`s`, `{lock}`...). */
  unit?: string;
}

/** A meter (`metrics.getMeter(...)`). */
export interface OtelMeter {
  /** Makes a histogram. */
  createHistogram(name: string, options?: OtelInstrumentOptions): OtelHistogram;
  /** Makes a counter. */
  createCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
  /** Makes an up-down counter. */
  createUpDownCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
}

/** A span (only what the bridge calls). */
export interface OtelSpan {
  /** Sets one attribute. */
  setAttribute(key: string, value: string | number | boolean): unknown;
  /** Sets the status (the bridge sets ERROR on failures). */
  setStatus(status: { code: number; message?: string }): unknown;
  /** Records the error a span ended with. */
  recordException(exception: Error | string): void;
  /** Ends the span. */
  end(endTime?: number): void;
}

/** A tracer (`trace.getTracer(...)`). */
export interface OtelTracer {
  /** Starts a span as a child of the span in `context`. */
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: OtelAttributes; startTime?: number },
    context?: OtelContext,
  ): OtelSpan;
}

/** The `@opentelemetry/api` module, as far as the bridge needs it. */
export interface OpenTelemetryApi {
  /** `api.metrics`. */
  metrics: {
    /** The global meter provider's meter. */
    getMeter(name: string, version?: string): OtelMeter;
  };
  /** `api.trace`. */
  trace: {
    /** The global tracer provider's tracer. */
    getTracer(name: string, version?: string): OtelTracer;
  };
  /** `api.context`. */
  context: {
    /** The caller's active context (the parent of the spans started now). */
    active(): OtelContext;
  };
}

/** `SpanKind.CLIENT` and `INTERNAL` (numbers fixed by the OpenTelemetry API). */
export const SpanKindValue = { internal: 0, client: 2 } as const;

/** `SpanStatusCode.ERROR` (fixed by the OpenTelemetry API). */
export const SPAN_STATUS_ERROR = 2;
