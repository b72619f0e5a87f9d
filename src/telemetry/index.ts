// What the root entry shows of the telemetry: the channel names and the message shapes, all a user
// needs to subscribe through the runtime's diagnostics_channel. The channel objects themselves
// (the runtime's own or the portable ones) are plumbing for instrumentations: zookeeper-ts/otel.
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
