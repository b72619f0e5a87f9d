// Ending a session on the server (closeSession), so its ephemeral nodes, lock nodes included, go
// at once instead of lingering for a whole session timeout. Shutting down locally is the
// session's; this file only tries, within a bound, to get the server's acknowledgement.
import { codecs, encodeRequest } from '../protocol/codecs.js';
import { ZooKeeperError } from '../protocol/errors.js';
import type { SessionContext } from './context.js';
import { makeRequest } from './requests.js';
import { isConnected, isFinal } from './state.js';

const CLOSE_REPLY_TIMEOUT = 5_000;

/**
 * Sends closeSession and waits for its reply. A suspended session first waits for a connection
 * to come back. Gives up after half the session timeout (at most 5 s), so that an explicit close
 * ends as 'closed', not 'expired'. Never rejects.
 */
export async function closeOnServer(ctx: SessionContext): Promise<void> {
  const { clock } = ctx;
  const bound = Math.min(CLOSE_REPLY_TIMEOUT, Math.floor(ctx.identity.timeout / 2));
  const deadline = clock.now() + bound;
  while (!isFinal(ctx.state) && ctx.identity.id !== 0n) {
    const remaining = deadline - clock.now();
    if (remaining <= 0) break;
    if (!isConnected(ctx.state)) {
      if (!(await waitForConnection(ctx, remaining))) break;
      continue;
    }
    if (await sendCloseSession(ctx, remaining)) break;
  }
}

/** True once the server answered closeSession; false if the link broke or time ran out. */
function sendCloseSession(ctx: SessionContext, timeout: number): Promise<boolean> {
  const xid = ctx.nextXid();
  return new Promise<boolean>((resolve) => {
    const timer = ctx.clock.setTimeout(() => resolve(false), timeout);
    const done = (answered: boolean) => {
      ctx.clock.clearTimeout(timer);
      // The server acknowledged closeSession: the session must never reconnect.
      if (answered) ctx.closeAnswered = true;
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
    ctx.outbox.push({
      kind: 'request',
      frame: encodeRequest(xid, codecs.closeSession, undefined),
      request,
    });
  });
}

function waitForConnection(ctx: SessionContext, timeout: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = ctx.clock.setTimeout(() => {
      unsubscribe();
      resolve(false);
    }, timeout);
    const unsubscribe = ctx.machine.subscribe((state) => {
      if (!isConnected(state) && !isFinal(state)) return;
      ctx.clock.clearTimeout(timer);
      unsubscribe();
      resolve(isConnected(state));
    });
  });
}
