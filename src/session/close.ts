// Ending a session on the server (closeSession), so its ephemeral nodes, lock nodes included, go
// at once instead of lingering for a whole session timeout. Shutting down locally is the
// session's; this file only tries, within a bound, to get the server's acknowledgement.
import { codecs, encodeRequest } from '../protocol/codecs.js';
import { ZooKeeperError } from '../protocol/errors.js';
import type { Clock } from './clock.js';
import { makeRequest, type Outbound } from './requests.js';
import { isConnected, isFinal } from './state.js';
import type { SessionState } from './types.js';

const CLOSE_REPLY_TIMEOUT = 5_000;

/** What asking the server to end the session needs from the session. */
export interface CloseRoute {
  readonly clock: Clock;
  state(): SessionState;
  subscribe(listener: (state: SessionState) => void): () => void;
  sessionId(): bigint;
  sessionTimeout(): number;
  nextXid(): number;
  send(item: Outbound): void;
  /** The server acknowledged closeSession: the session must never reconnect. */
  answered(): void;
}

/**
 * Sends closeSession and waits for its reply. A suspended session first waits for a connection
 * to come back. Gives up after half the session timeout (at most 5 s), so that an explicit close
 * ends as 'closed', not 'expired'. Never rejects.
 */
export async function closeOnServer(route: CloseRoute): Promise<void> {
  const { clock } = route;
  const bound = Math.min(CLOSE_REPLY_TIMEOUT, Math.floor(route.sessionTimeout() / 2));
  const deadline = clock.now() + bound;
  while (!isFinal(route.state()) && route.sessionId() !== 0n) {
    const remaining = deadline - clock.now();
    if (remaining <= 0) break;
    if (!isConnected(route.state())) {
      if (!(await waitForConnection(route, remaining))) break;
      continue;
    }
    if (await sendCloseSession(route, remaining)) break;
  }
}

/** True once the server answered closeSession; false if the link broke or time ran out. */
function sendCloseSession(route: CloseRoute, timeout: number): Promise<boolean> {
  const xid = route.nextXid();
  return new Promise<boolean>((resolve) => {
    const timer = route.clock.setTimeout(() => resolve(false), timeout);
    const done = (answered: boolean) => {
      route.clock.clearTimeout(timer);
      if (answered) route.answered();
      resolve(answered);
    };
    const request = makeRequest({
      xid,
      op: 'closeSession',
      read: () => undefined,
      resolve: () => done(true),
      reject: (error) =>
        done(!(error instanceof ZooKeeperError && error.code === 'CONNECTIONLOSS')),
    });
    route.send({
      kind: 'request',
      frame: encodeRequest(xid, codecs.closeSession, undefined),
      request,
    });
  });
}

function waitForConnection(route: CloseRoute, timeout: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = route.clock.setTimeout(() => {
      unsubscribe();
      resolve(false);
    }, timeout);
    const unsubscribe = route.subscribe((state) => {
      if (!isConnected(state) && !isFinal(state)) return;
      route.clock.clearTimeout(timer);
      unsubscribe();
      resolve(isConnected(state));
    });
  });
}
