import { describe, expect, it } from 'vitest';
import {
  ErrorCode,
  type ErrorCodeName,
  errorClasses,
  errorCodeName,
  errorFromCode,
  NodeExistsError,
  NoNodeError,
  ProtocolError,
  ZooKeeperError,
} from '../../../src/protocol/errors.js';

// KeeperException.Code values (identical in 3.8.6 and 3.9.5; see docs/protocol.md).
const reference: [ErrorCodeName, number][] = [
  ['OK', 0],
  ['SYSTEMERROR', -1],
  ['RUNTIMEINCONSISTENCY', -2],
  ['DATAINCONSISTENCY', -3],
  ['CONNECTIONLOSS', -4],
  ['MARSHALLINGERROR', -5],
  ['UNIMPLEMENTED', -6],
  ['OPERATIONTIMEOUT', -7],
  ['BADARGUMENTS', -8],
  ['UNKNOWNSESSION', -12],
  ['NEWCONFIGNOQUORUM', -13],
  ['RECONFIGINPROGRESS', -14],
  ['APIERROR', -100],
  ['NONODE', -101],
  ['NOAUTH', -102],
  ['BADVERSION', -103],
  ['NOCHILDRENFOREPHEMERALS', -108],
  ['NODEEXISTS', -110],
  ['NOTEMPTY', -111],
  ['SESSIONEXPIRED', -112],
  ['INVALIDCALLBACK', -113],
  ['INVALIDACL', -114],
  ['AUTHFAILED', -115],
  ['SESSIONMOVED', -118],
  ['NOTREADONLY', -119],
  ['EPHEMERALONLOCALSESSION', -120],
  ['NOWATCHER', -121],
  ['REQUESTTIMEOUT', -122],
  ['RECONFIGDISABLED', -123],
  ['SESSIONCLOSEDREQUIRESASLAUTH', -124],
  ['QUOTAEXCEEDED', -125],
  ['THROTTLEDOP', -127],
];

describe('ErrorCode table', () => {
  it('matches the reference exactly, with no extra or missing codes', () => {
    expect(Object.entries(ErrorCode)).toEqual(reference);
  });

  it('maps numbers back to Java names and keeps unknown codes as numbers', () => {
    for (const [name, errno] of reference) expect(errorCodeName(errno)).toBe(name);
    expect(errorCodeName(-999)).toBe('UNKNOWN(-999)');
    expect(errorCodeName(-116)).toBe('UNKNOWN(-116)');
  });
});

describe('errorFromCode', () => {
  it('builds a clear message with path and op', () => {
    const err = errorFromCode(-101, { path: '/a/b', op: 'getData' });
    expect(err.message).toBe('NONODE: no node at /a/b (getData)');
    expect(err.code).toBe('NONODE');
    expect(err.errno).toBe(-101);
    expect(err.path).toBe('/a/b');
    expect(err.op).toBe('getData');
    expect(err).toBeInstanceOf(ZooKeeperError);
    expect(err).toBeInstanceOf(NoNodeError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('NoNodeError');
  });

  it('omits what it does not know', () => {
    const err = errorFromCode(-110);
    expect(err.message).toBe('NODEEXISTS: node exists');
    expect(err.path).toBeUndefined();
    expect(err.op).toBeUndefined();
    expect(err).toBeInstanceOf(NodeExistsError);
    expect(err).not.toBeInstanceOf(NoNodeError);
  });

  it('returns the per-code subclass for every non-OK code', () => {
    for (const [name, errno] of reference) {
      if (name === 'OK') continue;
      const err = errorFromCode(errno, { op: 'x' });
      expect(err).toBeInstanceOf(errorClasses[name as Exclude<ErrorCodeName, 'OK'>]);
      expect(err).toBeInstanceOf(ZooKeeperError);
      expect(err.code).toBe(name);
      expect(err.errno).toBe(errno);
      expect(err.message.startsWith(`${name}: `)).toBe(true);
    }
  });

  it('keeps unknown codes as raw numbers', () => {
    const err = errorFromCode(-999, { path: '/x' });
    expect(err.code).toBe('UNKNOWN(-999)');
    expect(err.errno).toBe(-999);
    expect(err.message).toBe('UNKNOWN(-999): unknown error code -999 at /x');
    expect(err.constructor).toBe(ZooKeeperError);
  });

  it('passes the cause through', () => {
    const cause = new Error('socket closed');
    expect(errorFromCode(-4, { cause }).cause).toBe(cause);
  });
});

describe('ZooKeeperError and ProtocolError', () => {
  it('derives errno from the code name unless given', () => {
    expect(new ZooKeeperError('BADVERSION', 'm').errno).toBe(-103);
    expect(new ZooKeeperError('BADVERSION', 'm', { errno: -7 }).errno).toBe(-7);
    expect(new ZooKeeperError('UNKNOWN(-321)', 'm').errno).toBe(-321);
    const e = new ZooKeeperError('NOAUTH', 'denied', { path: '/p', op: 'setData' });
    expect(e.name).toBe('ZooKeeperError');
    expect(e.path).toBe('/p');
    expect(e.op).toBe('setData');
    e.results = [{ type: 'error', err: -102 }];
    expect(e.results).toHaveLength(1);
  });

  it('ProtocolError is a MARSHALLINGERROR ZooKeeperError', () => {
    const e = new ProtocolError('short read');
    expect(e).toBeInstanceOf(ZooKeeperError);
    expect(e.name).toBe('ProtocolError');
    expect(e.code).toBe('MARSHALLINGERROR');
    expect(e.errno).toBe(-5);
    expect(e.message).toBe('short read');
  });
});
