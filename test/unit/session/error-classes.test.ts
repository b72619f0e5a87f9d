// Every error the client builds is an instance of its code's class, the classes are exported,
// `code` is a union of names (a typo does not compile), and one table says what is transient and
// what ends the session.
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as api from '../../../src/index.js';
import {
  BadArgumentsError,
  ConnectionLossError,
  connect,
  ErrorCode,
  type ErrorCodeName,
  errorClasses,
  isRetriable,
  isSessionOver,
  MarshallingError,
  ProtocolError,
  RETRIABLE_CODES,
  SESSION_OVER_CODES,
  type Transport,
  ZooKeeperError,
  type ZooKeeperErrorCode,
} from '../../../src/index.js';
import { errorFromCode, makeError } from '../../../src/protocol/errors.js';

describe('error classes', () => {
  it('are exported for every code, named after it, and built by makeError and errorFromCode', () => {
    for (const [code, cls] of Object.entries(errorClasses)) {
      expect((api as Record<string, unknown>)[cls.name]).toBe(cls);
      const made = makeError(code as Exclude<ErrorCodeName, 'OK'>, 'm');
      expect(made).toBeInstanceOf(cls);
      expect(made).toBeInstanceOf(ZooKeeperError);
      expect(made.code).toBe(code);
      expect(made.errno).toBe(ErrorCode[code as ErrorCodeName]);
      expect(errorFromCode(made.errno)).toBeInstanceOf(cls);
    }
    expect(new ProtocolError('bad bytes')).toBeInstanceOf(MarshallingError);
    const unknown = errorFromCode(-999);
    expect(unknown.code).toBe('UNKNOWN(-999)');
    expect(unknown.retriable).toBe(false);
  });

  it('code is a union of code names: a typo does not compile', () => {
    const error: ZooKeeperError = makeError('NONODE', 'x');
    expectTypeOf(error.code).toEqualTypeOf<ZooKeeperErrorCode>();
    // @ts-expect-error 'NONOD' is not a code name
    expect(error.code === 'NONOD').toBe(false);
    // @ts-expect-error 'CONNECTIONLOST' is not a code name
    expect(() => makeError('CONNECTIONLOST', 'x')).toThrow();
    expect(error.code === 'NONODE').toBe(true);
  });

  it('one table says which codes are transient and which end the session', () => {
    expect([...RETRIABLE_CODES].sort()).toEqual(
      ['CONNECTIONLOSS', 'NOTREADONLY', 'REQUESTTIMEOUT', 'SESSIONMOVED', 'THROTTLEDOP'].sort(),
    );
    expect([...SESSION_OVER_CODES].sort()).toEqual(
      ['AUTHFAILED', 'SESSIONCLOSEDREQUIRESASLAUTH', 'SESSIONEXPIRED'].sort(),
    );
    expect(isRetriable(makeError('CONNECTIONLOSS', 'x'))).toBe(true);
    expect(makeError('REQUESTTIMEOUT', 'x').retriable).toBe(true);
    expect(isRetriable(makeError('NONODE', 'x'))).toBe(false);
    expect(isSessionOver(makeError('SESSIONEXPIRED', 'x'))).toBe(true);
    expect(makeError('AUTHFAILED', 'x').sessionOver).toBe(true);
    expect(isSessionOver(new Error('SESSIONEXPIRED'))).toBe(false);
  });
});

describe('errors the client makes itself are instances of their code class', () => {
  it('BADARGUMENTS from argument checks', async () => {
    await expect(connect('127.0.0.1:1', { sessionTimeout: -1 })).rejects.toBeInstanceOf(
      BadArgumentsError,
    );
    await expect(connect('', {})).rejects.toBeInstanceOf(BadArgumentsError);
  });

  it('CONNECTIONLOSS when connect() runs out of time, with the last error as cause', async () => {
    const refusing: Transport = {
      connect: () =>
        Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    };
    const error = await connect('127.0.0.1:1', { transport: refusing, connectTimeout: 200 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectionLossError);
    expect(((error as Error).cause as { code?: string }).code).toBe('ECONNREFUSED');
  });
});
