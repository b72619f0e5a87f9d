// The channel names the library publishes on: part of the public contract (docs/observability.md).

/**
 * The names of the library's diagnostics channels. Subscribe with Node's `diagnostics_channel`
 * (Node, Bun, Deno, workerd with nodejs_compat) or with `channel`/`tracingChannel` from
 * `zookeeper-ts/otel`, which hand back the very channels the library publishes on.
 */
export const ChannelName = {
  /**
   * A tracing channel (start, end, asyncStart, asyncEnd, error) around every request; the
   * context object is a {@link RequestMessage}.
   */
  request: 'zookeeper-ts:request',
  /** Session events: a {@link SessionMessage} per state change, connect, renewal and auth result. */
  session: 'zookeeper-ts:session',
  /** Lock and election events: a {@link LockMessage} per acquire, grant, release, loss... */
  lock: 'zookeeper-ts:lock',
  /** Watch events: a {@link WatchEventMessage} per server notification the session delivers. */
  watch: 'zookeeper-ts:watch',
} as const;
