// The client half of RFC 2831 DIGEST-MD5 with the `auth` quality of protection (authentication
// only: no integrity or confidentiality layer afterwards), as a ZooKeeper server speaks it: the
// server is the JDK's DIGEST-MD5 provider created for protocol "zookeeper" and server name
// "zk-sasl-md5", which is also the realm it offers.
import { AuthFailedError, type ZooKeeperError } from '../../protocol/errors.js';
import { md5, toHex } from './md5.js';

/** `protocol/serverName` of every ZooKeeper server's DIGEST-MD5 provider. */
export const ZOOKEEPER_DIGEST_URI = 'zookeeper/zk-sasl-md5';

/** The directives of a challenge; a directive that may repeat (realm) keeps every value. */
export type Directives = Map<string, string[]>;

export interface DigestResponse {
  /** The token to send back to the server. */
  token: Uint8Array;
  /** The `rspauth` value a server that knows the password must answer with. */
  expectedRspauth: string;
}

const encoder = new TextEncoder();

function failure(message: string): ZooKeeperError {
  return new AuthFailedError(`SASL DIGEST-MD5: ${message}`, { op: 'sasl' });
}

/**
 * Parses `key=value,key="quoted, value"` lists (RFC 2831 section 7.1: optional whitespace, empty
 * elements allowed, backslash escapes inside quotes).
 */
export function parseDirectives(text: string): Directives {
  const directives: Directives = new Map();
  let i = 0;
  const skip = () => {
    while (i < text.length && /[\s,]/.test(text[i]!)) i++;
  };
  skip();
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw failure(`malformed challenge near "${text.slice(i, i + 20)}"`);
    const key = text.slice(i, eq).trim().toLowerCase();
    i = eq + 1;
    while (i < text.length && /\s/.test(text[i]!)) i++;
    let value = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw failure('unterminated quoted string in the challenge');
        const ch = text[i++]!;
        if (ch === '"') break;
        value += ch === '\\' && i < text.length ? text[i++]! : ch;
      }
    } else {
      const end = text.indexOf(',', i);
      value = text.slice(i, end < 0 ? text.length : end).trim();
      i = end < 0 ? text.length : end;
    }
    const values = directives.get(key);
    if (values) values.push(value);
    else directives.set(key, [value]);
    skip();
  }
  return directives;
}

const quote = (value: string) => `"${value.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;

const isLatin1 = (text: string) => ![...text].some((ch) => ch.codePointAt(0)! > 0xff);

/** ISO 8859-1 bytes, what RFC 2831 hashes when the server does not announce charset=utf-8. */
function latin1(text: string, what: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff)
      throw failure(
        `the ${what} has characters outside ISO 8859-1 and the server does not accept UTF-8`,
      );
    bytes[i] = code;
  }
  return bytes;
}

function concat(parts: readonly (Uint8Array | string)[]): Uint8Array {
  const chunks = parts.map((part) => (typeof part === 'string' ? encoder.encode(part) : part));
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

const hexMd5 = (parts: readonly (Uint8Array | string)[]) => toHex(md5(concat(parts)));

/**
 * Answers the server's first challenge: checks it offers what this client can do (qop auth,
 * algorithm md5-sess) and computes the response (RFC 2831 section 2.1.2).
 */
export function respondToChallenge(
  challenge: Uint8Array,
  credentials: { username: string; password: string },
  cnonce: string,
  digestUri: string = ZOOKEEPER_DIGEST_URI,
): DigestResponse {
  const directives = parseDirectives(new TextDecoder().decode(challenge));
  const one = (key: string) => directives.get(key)?.[0];
  const nonce = one('nonce');
  if (!nonce) throw failure('the server challenge has no nonce');
  if (one('algorithm')?.toLowerCase() !== 'md5-sess') {
    throw failure(
      `the server challenge asks for algorithm "${one('algorithm') ?? ''}", not md5-sess`,
    );
  }
  const qops = (one('qop') ?? 'auth').split(',').map((qop) => qop.trim().toLowerCase());
  if (!qops.includes('auth')) {
    throw failure(
      `the server requires qop ${qops.join('/')}; this client implements only "auth" (no integrity or confidentiality layer)`,
    );
  }
  // The server offers its realm ("zk-sasl-md5" on ZooKeeper); none offered means the empty realm.
  const realm = one('realm') ?? '';
  const utf8 = one('charset')?.toLowerCase() === 'utf-8';
  // RFC 2831 2.1.2.1, which the JDK server follows string by string: even with charset=utf-8, a
  // name or password made only of ISO 8859-1 characters is hashed as ISO 8859-1; UTF-8 only for
  // one with a character beyond. Hashing "b\u00f6b" as UTF-8 would never match.
  const bytes = (text: string, what: string) =>
    utf8 && !isLatin1(text) ? encoder.encode(text) : latin1(text, what);
  const nc = '00000001';
  const secret = md5(
    concat([
      bytes(credentials.username, 'username'),
      ':',
      bytes(realm, 'realm'),
      ':',
      bytes(credentials.password, 'password'),
    ]),
  );
  const ha1 = hexMd5([secret, ':', nonce, ':', cnonce]);
  const kd = (a2: string) =>
    hexMd5([ha1, ':', nonce, ':', nc, ':', cnonce, ':auth:', hexMd5([a2])]);
  const fields = [
    ...(utf8 ? ['charset=utf-8'] : []),
    `username=${quote(credentials.username)}`,
    ...(one('realm') !== undefined ? [`realm=${quote(realm)}`] : []),
    `nonce=${quote(nonce)}`,
    `nc=${nc}`,
    `cnonce=${quote(cnonce)}`,
    `digest-uri=${quote(digestUri)}`,
    'maxbuf=65536',
    `response=${kd(`AUTHENTICATE:${digestUri}`)}`,
    'qop=auth',
  ];
  const text = fields.join(',');
  return {
    token: utf8 ? encoder.encode(text) : latin1(text, 'response'),
    expectedRspauth: kd(`:${digestUri}`),
  };
}

/**
 * Checks the server's final token: `rspauth` proves the server knows the password too, so a
 * server impersonating the real one cannot pass as authenticated.
 */
export function verifyServerFinal(token: Uint8Array | null, expectedRspauth: string): void {
  const text = token ? new TextDecoder().decode(token) : '';
  const rspauth = parseDirectives(text).get('rspauth')?.[0];
  if (rspauth === undefined) throw failure('the server did not send rspauth to prove its identity');
  if (rspauth.toLowerCase() !== expectedRspauth) {
    throw failure("the server's rspauth does not match: it does not know this user's password");
  }
}

/** A fresh client nonce: 16 random bytes as hex (crypto.getRandomValues exists on every runtime). */
export function makeCnonce(): string {
  return toHex(globalThis.crypto.getRandomValues(new Uint8Array(16)));
}
