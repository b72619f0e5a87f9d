// Publishing watch events on `zookeeper-ts:watch`: one check per notification when nobody listens.
import { ChannelName } from './names.js';
import { channel } from './resolve.js';

const watches = channel(ChannelName.watch);

/** The session `sessionId` handed a notification of `eventType` on `path` to `delivered` watchers. */
export function watchEventDelivered(
  sessionId: bigint,
  eventType: string,
  path: string,
  delivered: number,
): void {
  if (!watches.hasSubscribers) return;
  watches.publish({ type: 'event', sessionId, eventType, path, delivered });
}
