// Publishing requests on `zookeeper-ts:request`. The session asks `requestTraced()` first: with no
// subscriber a request takes the untraced path and nothing here allocates.
import { ZooKeeperError } from '../protocol/errors.js';
import { stripChroot } from '../protocol/paths.js';
import type { RequestMessage } from './messages.js';
import { ChannelName } from './names.js';
import { tracingChannel } from './resolve.js';

const requests = tracingChannel<RequestMessage>(ChannelName.request);

/** Whether anyone listens to requests (read before every request: a property read). */
export function requestTraced(): boolean {
  return requests.hasSubscribers;
}

/** Runs `submit` (which queues the request) traced, with a fresh context for it. */
export function traceRequest<T>(
  start: { op: string; path: string | undefined; xid: number; sessionId: bigint; chroot: string },
  server: string | null,
  submit: (message: RequestMessage) => Promise<T>,
): Promise<T> {
  const message: RequestMessage = {
    op: start.op,
    path: start.path === undefined ? undefined : stripChroot(start.chroot, start.path),
    xid: start.xid,
    sessionId: start.sessionId,
    server,
    startTime: performance.now(),
    bytesSent: 0,
  };
  return requests.tracePromise(() => submit(message), message);
}

/** The request settled: its end time and result code, before the tracing channel hears of it. */
export function requestSettled(message: RequestMessage, error: Error | null): void {
  const end = performance.now();
  message.endTime = end;
  message.duration = end - message.startTime;
  message.resultCode = error ? (error instanceof ZooKeeperError ? error.code : 'ERROR') : 'OK';
}
