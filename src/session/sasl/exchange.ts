// The challenge/response loop of ZooKeeper's `sasl` request, run on a fresh connection before
// anything else is written to it. ZooKeeper carries SASL tokens in ordinary requests (opcode 102,
// GetSASLRequest / SetSASLResponse); DIGEST-MD5 takes two round trips:
//   1. an empty token; the server answers with its challenge (realm, nonce, qop, charset);
//   2. the digest response; the server answers with `rspauth`, proof it knows the password too.
// The server answers a wrong password with AUTHFAILED (or SESSIONCLOSEDREQUIRESASLAUTH when it
// enforces SASL) and closes the connection.
import { AuthFailedError, ZooKeeperError } from '../../protocol/errors.js';
import { makeCnonce, respondToChallenge, verifyServerFinal } from './digest-md5.js';
import type { SaslOptions } from './options.js';

/** Sends one SASL token and resolves with the server's token (null when it sent none). */
export type SaslSend = (token: Uint8Array) => Promise<Uint8Array | null>;

/**
 * Runs the exchange. Resolves once the server accepted the credentials. Rejects with AUTHFAILED
 * when the credentials (or the server) fail; any other rejection (CONNECTIONLOSS) comes from the
 * link and says nothing about the credentials.
 */
export async function saslAuthenticate(
  options: SaslOptions,
  send: SaslSend,
  cnonce: () => string = makeCnonce,
): Promise<void> {
  const exchange = async (token: Uint8Array) => {
    try {
      return await send(token);
    } catch (error) {
      if (!(error instanceof ZooKeeperError) || error.code === 'CONNECTIONLOSS') throw error;
      // An error reply to a SASL token is the server's verdict on the credentials.
      throw new AuthFailedError(
        `SASL ${options.mechanism} authentication as "${options.username}" failed: the server answered ${error.code}`,
        { op: 'sasl', cause: error },
      );
    }
  };
  const challenge = await exchange(new Uint8Array(0));
  if (!challenge || challenge.length === 0) {
    throw new AuthFailedError(
      'SASL DIGEST-MD5: the server sent no challenge (is SASL configured on the server: a JAAS Server section and java.security.auth.login.config?)',
      { op: 'sasl' },
    );
  }
  const response = respondToChallenge(challenge, options, cnonce());
  verifyServerFinal(await exchange(response.token), response.expectedRspauth);
}
