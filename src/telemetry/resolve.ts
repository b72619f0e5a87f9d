// Finding the runtime's `diagnostics_channel` without a static import: the library must load on
// workerd without nodejs_compat, where `node:diagnostics_channel` does not exist and a static
// import would fail the whole module graph. `process.getBuiltinModule` (Node >= 20.16, Bun, Deno,
// workerd with nodejs_compat) is synchronous, so the channels are known before the first publish;
// without it the portable channels (portable.ts) stand in, under the same names.
import {
  type PublishChannel,
  type PublishTracingChannel,
  portableChannel,
  portableTracingChannel,
} from './portable.js';

interface DiagnosticsChannelModule {
  channel(name: string): PublishChannel;
  tracingChannel?(name: string): PublishTracingChannel<object>;
}

function builtin(): DiagnosticsChannelModule | undefined {
  try {
    const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
      ?.getBuiltinModule;
    const module = get?.('node:diagnostics_channel') as DiagnosticsChannelModule | undefined;
    return typeof module?.channel === 'function' ? module : undefined;
  } catch {
    return undefined;
  }
}

const native = builtin();

/** Whether the library publishes on the runtime's own `diagnostics_channel`. */
export const nativeChannels = native !== undefined;

/** The channel named `name`: the runtime's own when it has the module, else the portable one. */
export function channel(name: string): PublishChannel {
  return native ? native.channel(name) : portableChannel(name);
}

/**
 * The tracing channel named `name` (channels `tracing:<name>:start` and so on): the runtime's own
 * when it has one, else the portable one.
 */
export function tracingChannel<Context extends object>(
  name: string,
): PublishTracingChannel<Context> {
  const made = native?.tracingChannel?.(name) as PublishTracingChannel<Context> | undefined;
  if (!made) return portableTracingChannel<Context>(name);
  // TracingChannel.hasSubscribers came in Node 20.13; before it, ask its five channels.
  if (typeof made.hasSubscribers !== 'boolean') {
    Object.defineProperty(made, 'hasSubscribers', {
      get: () =>
        made.start.hasSubscribers ||
        made.end.hasSubscribers ||
        made.asyncStart.hasSubscribers ||
        made.asyncEnd.hasSubscribers ||
        made.error.hasSubscribers,
    });
  }
  return made;
}
