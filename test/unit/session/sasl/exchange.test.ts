// The SASL loop against a scripted server side: what each kind of answer turns into. (The real
// server is in test/integration/client/sasl.test.ts.)
import { describe, expect, it } from 'vitest';
import { connect } from '../../../../src/index.js';
import { errorFromCode, ZooKeeperError } from '../../../../src/protocol/errors.js';
import { respondToChallenge } from '../../../../src/session/sasl/digest-md5.js';
import { type SaslSend, saslAuthenticate } from '../../../../src/session/sasl/exchange.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const CHALLENGE = utf8(
  'realm="zk-sasl-md5",nonce="abc",qop="auth",charset=utf-8,algorithm=md5-sess',
);
const USER = { mechanism: 'DIGEST-MD5', username: 'alice', password: 'pw' } as const;

/** A server that answers each token with the next scripted reply, recording what it got. */
function scripted(replies: ((token: Uint8Array) => Uint8Array | null | Error)[]) {
  const tokens: Uint8Array[] = [];
  const send: SaslSend = async (token) => {
    tokens.push(token);
    const reply = replies.shift()?.(token);
    if (reply === undefined) throw new Error('unexpected token');
    if (reply instanceof Error) throw reply;
    return reply;
  };
  return { send, tokens };
}

async function failure(promise: Promise<unknown>): Promise<ZooKeeperError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ZooKeeperError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('saslAuthenticate', () => {
  it('sends an empty token, then the digest response, and accepts the right rspauth', async () => {
    const rspauth = respondToChallenge(CHALLENGE, USER, 'fixed').expectedRspauth;
    const server = scripted([() => CHALLENGE, () => utf8(`rspauth=${rspauth}`)]);
    await saslAuthenticate(USER, server.send, () => 'fixed');
    expect(server.tokens.map((t) => t.length === 0)).toEqual([true, false]);
    expect(new TextDecoder().decode(server.tokens[1])).toContain(
      'digest-uri="zookeeper/zk-sasl-md5"',
    );
  });

  it('a server error reply becomes AUTHFAILED naming the user and the server code', async () => {
    const server = scripted([() => CHALLENGE, () => errorFromCode(-124, { op: 'sasl' })]);
    const error = await failure(saslAuthenticate(USER, server.send));
    expect(error).toMatchObject({ code: 'AUTHFAILED', errno: -115, op: 'sasl' });
    expect(error.message).toMatch(
      /as "alice" failed: the server answered SESSIONCLOSEDREQUIRESASLAUTH/,
    );
  });

  it('a broken link stays CONNECTIONLOSS (not a verdict on the credentials)', async () => {
    const lost = new ZooKeeperError('CONNECTIONLOSS', 'link down');
    const server = scripted([() => CHALLENGE, () => lost]);
    expect(await failure(saslAuthenticate(USER, server.send))).toBe(lost);
  });

  it('no challenge (a server without SASL configured) is AUTHFAILED with a hint', async () => {
    const server = scripted([() => null]);
    const error = await failure(saslAuthenticate(USER, server.send));
    expect(error).toMatchObject({ code: 'AUTHFAILED' });
    expect(error.message).toMatch(/sent no challenge/);
  });

  it('a server that cannot prove it knows the password is refused', async () => {
    const server = scripted([
      () => CHALLENGE,
      () => utf8('rspauth=0123456789abcdef0123456789abcdef'),
    ]);
    const error = await failure(saslAuthenticate(USER, server.send));
    expect(error).toMatchObject({ code: 'AUTHFAILED' });
    expect(error.message).toMatch(/rspauth does not match/);
  });
});

describe('the sasl connect option', () => {
  it('refuses bad options with BADARGUMENTS before connecting', async () => {
    const cases: [unknown, RegExp][] = [
      [{ mechanism: 'GSSAPI', username: 'a', password: 'b' }, /GSSAPI is not supported/],
      [{ mechanism: 'DIGEST-MD5', username: '', password: 'b' }, /username/],
      [{ mechanism: 'DIGEST-MD5', username: 'a' }, /password/],
      ['alice:pw', /must be an object/],
    ];
    for (const [sasl, reason] of cases) {
      // Port 1: nothing listens, so only the option check can answer within the timeout.
      const error = await failure(
        connect('127.0.0.1:1', { sasl: sasl as never, connectTimeout: 30_000 }),
      );
      expect(error, JSON.stringify(sasl)).toMatchObject({ code: 'BADARGUMENTS' });
      expect(error.message).toMatch(reason);
    }
  });
});
