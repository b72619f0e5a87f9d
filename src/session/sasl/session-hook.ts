// Where SASL meets the session: the tokens go straight onto the new connection, ahead of the
// outbox (which stays closed until `done`), and their replies come back through the session's
// ordinary in-order reply matching. So nothing else reaches the server before the exchange ends,
// as the Java client does: restored watches, digest credentials and user requests all wait.
import { codecs, encodeRequest } from '../../protocol/codecs.js';
import { AuthFailedError, ZooKeeperError } from '../../protocol/errors.js';
import type { Deque } from '../queue.js';
import { makeRequest, type PendingRequest } from '../requests.js';
import type { Connection } from '../transport.js';
import { type SaslSend, saslAuthenticate } from './exchange.js';
import type { SaslOptions } from './options.js';

/** What the exchange needs from the session, and what it tells it. */
export interface SaslHookEvents {
  /** The xid for the next token (tokens share the session's xid sequence). */
  nextXid(): number;
  /**
   * A token is being written (keeps the heartbeat's idea of the last write right); returns the
   * time on the session's clock: the token's reply proves the session alive as of then.
   */
  sent(): number;
  /** The server accepted the credentials on this connection. */
  done(): void;
  /** The credentials failed: the session must end. */
  failed(error: ZooKeeperError): void;
}

/** Starts the exchange on a connection whose handshake just completed. Never rejects. */
export function saslOnConnection(
  options: SaslOptions,
  pending: Deque<PendingRequest>,
  connection: Connection,
  events: SaslHookEvents,
): void {
  const send: SaslSend = (token) =>
    new Promise((resolve, reject) => {
      const xid = events.nextXid();
      const request = makeRequest({
        xid,
        op: 'sasl',
        read: (r) => codecs.sasl.read(r).token,
        resolve,
        reject,
      });
      request.sentAt = events.sent();
      pending.push(request);
      // A few hundred bytes: no need to wait for a drain; a write on a dying link fails through
      // the pending token (CONNECTIONLOSS) instead.
      connection.write(encodeRequest(xid, codecs.sasl, { token }))?.catch(() => {});
    });
  saslAuthenticate(options, send).then(
    () => {
      try {
        events.done();
      } catch {
        // Never an unhandled rejection: drop this link; the next one starts over.
        connection.close();
      }
    },
    (error: unknown) => {
      // The link broke mid-exchange: the pending token failed with CONNECTIONLOSS, and the next
      // connection runs the whole exchange again.
      if (error instanceof ZooKeeperError && error.code === 'CONNECTIONLOSS') return;
      events.failed(
        error instanceof ZooKeeperError && error.code === 'AUTHFAILED'
          ? error
          : new AuthFailedError(
              `SASL ${options.mechanism} authentication failed: ${String(error)}`,
              {
                op: 'sasl',
                cause: error,
              },
            ),
      );
    },
  );
}
