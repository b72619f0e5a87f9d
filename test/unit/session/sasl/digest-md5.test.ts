// DIGEST-MD5 client computations: the worked example of RFC 2831 section 4, the directive parser,
// and the refusals (no auth qop, wrong algorithm, a server that cannot prove it knows the password).
import { describe, expect, it } from 'vitest';
import {
  parseDirectives,
  respondToChallenge,
  verifyServerFinal,
  ZOOKEEPER_DIGEST_URI,
} from '../../../../src/session/sasl/digest-md5.js';
import { thrown } from '../../../support/thrown.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

// RFC 2831 section 4, the IMAP example.
const RFC_CHALLENGE =
  'realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",qop="auth",algorithm=md5-sess,charset=utf-8';
const RFC_USER = { username: 'chris', password: 'secret' };

describe('DIGEST-MD5', () => {
  it('computes the response and rspauth of the RFC 2831 example', () => {
    const answer = respondToChallenge(
      utf8(RFC_CHALLENGE),
      RFC_USER,
      'OA6MHXh6VqTrRk',
      'imap/elwood.innosoft.com',
    );
    const fields = parseDirectives(text(answer.token));
    expect(fields.get('response')).toEqual(['d388dad90d4bbd760a152321f2143af7']);
    expect(answer.expectedRspauth).toBe('ea40f60335c427b5527b84dbabcdfffd');
    expect(fields.get('username')).toEqual(['chris']);
    expect(fields.get('realm')).toEqual(['elwood.innosoft.com']);
    expect(fields.get('nc')).toEqual(['00000001']);
    expect(fields.get('qop')).toEqual(['auth']);
    expect(fields.get('charset')).toEqual(['utf-8']);
    expect(() =>
      verifyServerFinal(utf8('rspauth=ea40f60335c427b5527b84dbabcdfffd'), answer.expectedRspauth),
    ).not.toThrow();
  });

  it('answers for ZooKeeper with digest-uri zookeeper/zk-sasl-md5 and the offered realm', () => {
    const challenge =
      'realm="zk-sasl-md5",nonce="n0nce",qop="auth",charset=utf-8,algorithm=md5-sess';
    const answer = respondToChallenge(utf8(challenge), { username: 'alice', password: 'pw' }, 'c');
    const fields = parseDirectives(text(answer.token));
    expect(fields.get('digest-uri')).toEqual([ZOOKEEPER_DIGEST_URI]);
    expect(ZOOKEEPER_DIGEST_URI).toBe('zookeeper/zk-sasl-md5');
    expect(fields.get('realm')).toEqual(['zk-sasl-md5']);
  });

  it('parses quoted values with commas and escapes, repeated directives and blank elements', () => {
    const parsed = parseDirectives(
      ' realm="a",realm="b\\"c" ,, qop="auth,auth-int", maxbuf=1024 ,cipher="rc4,3des"',
    );
    expect(parsed.get('realm')).toEqual(['a', 'b"c']);
    expect(parsed.get('qop')).toEqual(['auth,auth-int']);
    expect(parsed.get('maxbuf')).toEqual(['1024']);
    expect(parsed.get('cipher')).toEqual(['rc4,3des']);
    expect(() => parseDirectives('nonce="open')).toThrow(/unterminated/);
  });

  it('quotes user names with quotes and backslashes so the server reads them back', () => {
    const answer = respondToChallenge(
      utf8('nonce="x",algorithm=md5-sess,charset=utf-8'),
      { username: 'we"ird\\name', password: 'p' },
      'c',
    );
    expect(parseDirectives(text(answer.token)).get('username')).toEqual(['we"ird\\name']);
    // No realm offered: none sent (the empty realm is hashed).
    expect(parseDirectives(text(answer.token)).has('realm')).toBe(false);
  });

  it('refuses challenges it cannot answer safely, as AUTHFAILED', () => {
    const cases = [
      ['realm="r",qop="auth-conf",algorithm=md5-sess,nonce="n"', /qop auth-conf/],
      ['realm="r",qop="auth",algorithm=md5,nonce="n"', /md5-sess/],
      ['realm="r",qop="auth",algorithm=md5-sess', /no nonce/],
      ['no equals sign', /malformed/],
    ] as const;
    for (const [challenge, reason] of cases) {
      const caught = thrown(() => respondToChallenge(utf8(challenge), RFC_USER, 'c'));
      expect(caught, challenge).toMatchObject({
        code: 'AUTHFAILED',
        message: expect.stringMatching(reason),
      });
    }
  });

  it('rejects a final token without rspauth or with a wrong one', () => {
    expect(() => verifyServerFinal(null, 'abc')).toThrow(/did not send rspauth/);
    expect(() => verifyServerFinal(utf8('rspauth=00'), 'abc')).toThrow(/does not match/);
  });

  it('hashes ISO 8859-1 credentials as ISO 8859-1 even with charset=utf-8, others as UTF-8', () => {
    const latinUser = { username: 'jos\u00e9', password: 'p\u00e4ss' };
    const offerUtf8 = utf8('nonce="n",algorithm=md5-sess,charset=utf-8');
    const offerLatin1 = utf8('nonce="n",algorithm=md5-sess');
    // RFC 2831 2.1.2.1: the same digest whether or not the server announced UTF-8.
    expect(respondToChallenge(offerUtf8, latinUser, 'c').expectedRspauth).toBe(
      respondToChallenge(offerLatin1, latinUser, 'c').expectedRspauth,
    );
    // Without charset=utf-8 the token itself is ISO 8859-1: \u00e9 is the one byte 0xe9.
    expect([...respondToChallenge(offerLatin1, latinUser, 'c').token]).toContain(0xe9);
    // A character beyond ISO 8859-1: UTF-8 when the server accepts it, a clear refusal otherwise.
    const wide = { username: 'u', password: 'caf\u00e9\u4e2d' };
    const asLatin = respondToChallenge(offerUtf8, { username: 'u', password: 'caf\u00e9' }, 'c');
    expect(respondToChallenge(offerUtf8, wide, 'c').expectedRspauth).not.toBe(
      asLatin.expectedRspauth,
    );
    expect(() => respondToChallenge(offerLatin1, wide, 'c')).toThrow(/ISO 8859-1/);
  });
});
