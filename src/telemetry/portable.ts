// Channels for runtimes without `node:diagnostics_channel` (workerd without nodejs_compat): the
// same names, the same message objects and the same subset of Node's API the library uses, so a
// subscriber written against Node's channels works unchanged on them.

/** A subscriber of a plain channel (Node's signature). */
export type ChannelListener = (message: unknown, name: string | symbol) => void;

/** The part of Node's `Channel` the library publishes through and a subscriber needs. */
export interface PublishChannel {
  /** The channel's name. */
  readonly name: string | symbol;
  /** Whether anyone listens: the library publishes nothing while this is false. */
  readonly hasSubscribers: boolean;
  /** Hands `message` to every subscriber, synchronously. */
  publish(message: unknown): void;
  /** Adds a subscriber. */
  subscribe(listener: ChannelListener): void;
  /** Removes a subscriber; false when it was not subscribed. */
  unsubscribe(listener: ChannelListener): boolean;
}

/** The handlers of a tracing channel (Node's `TracingChannelSubscribers`), each optional. */
export interface TracingHandlers<Context extends object> {
  /** The call began (synchronously, in the caller's context). */
  start?: (message: Context) => void;
  /** The call returned its promise. */
  end?: (message: Context) => void;
  /** The promise settled (`result` or `error` set). */
  asyncStart?: (message: Context) => void;
  /** After asyncStart: the traced work is over. */
  asyncEnd?: (message: Context) => void;
  /** The call failed (`error` set), before asyncStart. */
  error?: (message: Context & { error: unknown }) => void;
}

/** The part of Node's `TracingChannel` the library traces through and a subscriber needs. */
export interface PublishTracingChannel<Context extends object> {
  /** `tracing:<name>:start`. */
  readonly start: PublishChannel;
  /** `tracing:<name>:end`. */
  readonly end: PublishChannel;
  /** `tracing:<name>:asyncStart`. */
  readonly asyncStart: PublishChannel;
  /** `tracing:<name>:asyncEnd`. */
  readonly asyncEnd: PublishChannel;
  /** `tracing:<name>:error`. */
  readonly error: PublishChannel;
  /** Whether any of the five channels has a subscriber. */
  readonly hasSubscribers: boolean;
  /** Subscribes each given handler to its channel. */
  subscribe(handlers: TracingHandlers<Context>): void;
  /** Unsubscribes each given handler; false when one was not subscribed. */
  unsubscribe(handlers: TracingHandlers<Context>): boolean;
  /** Runs `fn` traced, with `context` as the message of every event. */
  tracePromise<T>(fn: () => Promise<T>, context: Context): Promise<T>;
}

class PortableChannel implements PublishChannel {
  private listeners: ChannelListener[] = [];

  constructor(readonly name: string) {}

  get hasSubscribers(): boolean {
    return this.listeners.length > 0;
  }

  publish(message: unknown): void {
    for (const listener of this.listeners) {
      try {
        listener(message, this.name);
      } catch (error) {
        // As Node does: a throwing subscriber neither breaks the publisher nor the others.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  subscribe(listener: ChannelListener): void {
    // A new array, so that a publish under way keeps the list it started with.
    this.listeners = [...this.listeners, listener];
  }

  unsubscribe(listener: ChannelListener): boolean {
    const before = this.listeners.length;
    this.listeners = this.listeners.filter((l) => l !== listener);
    return this.listeners.length !== before;
  }
}

const EVENTS = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const;

class PortableTracingChannel<Context extends object> implements PublishTracingChannel<Context> {
  readonly start: PublishChannel;
  readonly end: PublishChannel;
  readonly asyncStart: PublishChannel;
  readonly asyncEnd: PublishChannel;
  readonly error: PublishChannel;

  constructor(name: string) {
    this.start = portableChannel(`tracing:${name}:start`);
    this.end = portableChannel(`tracing:${name}:end`);
    this.asyncStart = portableChannel(`tracing:${name}:asyncStart`);
    this.asyncEnd = portableChannel(`tracing:${name}:asyncEnd`);
    this.error = portableChannel(`tracing:${name}:error`);
  }

  get hasSubscribers(): boolean {
    return EVENTS.some((event) => this[event].hasSubscribers);
  }

  subscribe(handlers: TracingHandlers<Context>): void {
    for (const event of EVENTS) {
      const handler = handlers[event] as ChannelListener | undefined;
      if (handler) this[event].subscribe(handler);
    }
  }

  unsubscribe(handlers: TracingHandlers<Context>): boolean {
    let done = true;
    for (const event of EVENTS) {
      const handler = handlers[event] as ChannelListener | undefined;
      if (handler) done = this[event].unsubscribe(handler) && done;
    }
    return done;
  }

  /** Node's order: start, the call, end; then error (on rejection), asyncStart, asyncEnd. */
  tracePromise<T>(fn: () => Promise<T>, context: Context): Promise<T> {
    const message = context as Context & { result?: unknown; error?: unknown };
    this.start.publish(message);
    let promise: Promise<T>;
    try {
      promise = fn();
    } catch (error) {
      message.error = error;
      this.error.publish(message);
      this.end.publish(message);
      throw error;
    }
    this.end.publish(message);
    return promise.then(
      (result) => {
        message.result = result;
        this.asyncStart.publish(message);
        this.asyncEnd.publish(message);
        return result;
      },
      (error: unknown) => {
        message.error = error;
        this.error.publish(message);
        this.asyncStart.publish(message);
        this.asyncEnd.publish(message);
        throw error;
      },
    );
  }
}

/** One channel per name, as Node keeps them. */
const portableChannels = new Map<string, PortableChannel>();

export function portableChannel(name: string): PublishChannel {
  let found = portableChannels.get(name);
  if (!found) {
    found = new PortableChannel(name);
    portableChannels.set(name, found);
  }
  return found;
}

export function portableTracingChannel<Context extends object>(
  name: string,
): PublishTracingChannel<Context> {
  return new PortableTracingChannel<Context>(name);
}
