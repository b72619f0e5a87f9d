// The public face of the telemetry: channel names, message shapes, and the channels themselves
// (the runtime's own, or the portable ones where it has none).
export type {
  LockAcquireEndMessage,
  LockAcquireStartMessage,
  LockElectionMessage,
  LockHoldEndMessage,
  LockMessage,
  RequestMessage,
  SessionAuthMessage,
  SessionConnectMessage,
  SessionMessage,
  SessionRenewedMessage,
  SessionStateMessage,
  WatchEventMessage,
} from './messages.js';
export { ChannelName } from './names.js';
export type {
  ChannelListener,
  PublishChannel,
  PublishTracingChannel,
  TracingHandlers,
} from './portable.js';
export { channel, nativeChannels, tracingChannel } from './resolve.js';
