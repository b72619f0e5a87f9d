// The error-code table: ZooKeeper's codes (Java's KeeperException.Code), name to number, and what
// each means (its text, whether it is transient or ends the session). Every other error fact -
// the classes, RETRIABLE_CODES, the messages - is derived from these two tables.

/**
 * ZooKeeper's error codes (Java's `KeeperException.Code`): name to number. A
 * {@link ZooKeeperError} carries both, as `code` (the name) and `errno` (the number).
 */
export const ErrorCode = {
  /** Success; never raised. */
  OK: 0,
  /** Range marker only; the server does not send it. */
  SYSTEMERROR: -1,
  /** A runtime inconsistency was found. */
  RUNTIMEINCONSISTENCY: -2,
  /** A data inconsistency was found. */
  DATAINCONSISTENCY: -3,
  /** Raised client-side when the connection drops with requests outstanding. */
  CONNECTIONLOSS: -4,
  /** Bytes could not be encoded or decoded (see {@link ProtocolError}). */
  MARSHALLINGERROR: -5,
  /** The server does not implement the operation. */
  UNIMPLEMENTED: -6,
  /** The operation timed out on the server. */
  OPERATIONTIMEOUT: -7,
  /** Invalid arguments: raised client-side for bad input before anything is sent, or by the server. */
  BADARGUMENTS: -8,
  /** Server-internal. */
  UNKNOWNSESSION: -12,
  /** reconfig: no quorum of the new configuration is connected and up to date with the leader. */
  NEWCONFIGNOQUORUM: -13,
  /** reconfig: another reconfiguration is in progress. */
  RECONFIGINPROGRESS: -14,
  /** Range marker only. */
  APIERROR: -100,
  /** The node does not exist. */
  NONODE: -101,
  /** The session is not authorized for the operation (ACL). */
  NOAUTH: -102,
  /** The expected version does not match the node's. */
  BADVERSION: -103,
  /** Ephemeral nodes may not have children. */
  NOCHILDRENFOREPHEMERALS: -108,
  /** The node already exists. */
  NODEEXISTS: -110,
  /** The node has children. */
  NOTEMPTY: -111,
  /** The session expired: its ephemeral nodes and watches are gone; connect again. */
  SESSIONEXPIRED: -112,
  /** Invalid callback (Java client only). */
  INVALIDCALLBACK: -113,
  /** The ACL is invalid (empty, or an unknown scheme or id). */
  INVALIDACL: -114,
  /** Authentication failed; the session is over. */
  AUTHFAILED: -115,
  /** The session moved to another server. */
  SESSIONMOVED: -118,
  /** A write was sent to a read-only server. */
  NOTREADONLY: -119,
  /** An ephemeral node cannot be created on a local session. */
  EPHEMERALONLOCALSESSION: -120,
  /** removeWatches found no such watcher. */
  NOWATCHER: -121,
  /** Raised client-side when a request outlives its timeout. */
  REQUESTTIMEOUT: -122,
  /** reconfig is disabled on the server. */
  RECONFIGDISABLED: -123,
  /** The server closed the session because the client did not authenticate with SASL. */
  SESSIONCLOSEDREQUIRESASLAUTH: -124,
  /** The node's quota was exceeded (hard quota). */
  QUOTAEXCEEDED: -125,
  /** The server is shedding load: retry with backoff. */
  THROTTLEDOP: -127,
} as const;

/** The name of an error code, as in {@link ZooKeeperError.code} (`'NONODE'`, `'BADVERSION'`, ...). */
export type ErrorCodeName = keyof typeof ErrorCode;

/**
 * The codes of errors the client raises on its own, which no server sends (see the classes in
 * `errors-client.ts`): name to number. The numbers lie below -1000, a range ZooKeeper does not use,
 * so `errno` never collides with a server code.
 */
export const ClientErrorCode = {
  /** A wait ran out of its `timeout` (`TimeoutError`, and `LockTimeoutError`). */
  TIMEOUT: -1001,
  /** A recipe object was closed while it was used or waited on (`ClosedError`). */
  CLOSED: -1002,
  /** The client was closed: nothing can be sent on it any more (`ClientClosedError`). */
  CLIENTCLOSED: -1003,
  /** The holder released its lease; why a lease's `signal` aborts then (`LeaseReleasedError`). */
  LEASERELEASED: -1004,
  /**
   * Another process asked the holder of a revocable lease to let go; why its `revocation` signal
   * aborts (`RevocationRequestedError`).
   */
  REVOCATIONREQUESTED: -1005,
} as const;

/** The name of a client-side code (`'TIMEOUT'`, `'CLOSED'`, `'LEASERELEASED'`, ...). */
export type ClientErrorCodeName = keyof typeof ClientErrorCode;

/** True for the name of a client-side code. */
export function isClientCode(code: string): code is ClientErrorCodeName {
  return Object.hasOwn(ClientErrorCode, code);
}

/**
 * What `ZooKeeperError.code` holds: a server code name from the table, a client-side code
 * ({@link ClientErrorCode}), or `UNKNOWN(<n>)` for a number the table does not know (a newer
 * server). A union, so `err.code === 'NONOD'` fails to compile.
 */
export type ZooKeeperErrorCode = ErrorCodeName | ClientErrorCodeName | `UNKNOWN(${number})`;

const namesByNumber = new Map<number, ErrorCodeName>(
  (Object.entries(ErrorCode) as [ErrorCodeName, number][]).map(([name, errno]) => [errno, name]),
);

export interface CodeInfo {
  /** Human description, close to KeeperException.getCodeMessage. */
  readonly text: string;
  /**
   * Transient: the same call may succeed if sent again once the link is back, the load is lower
   * or a read-write server is reachable. The session lives on, but a write that failed this way may or may not have been
   * applied (repeat only what is safe to repeat, or check first).
   */
  readonly retriable?: true;
  /** The session is over (or unusable): nothing on it can succeed any more, its ephemerals go. */
  readonly sessionOver?: true;
}

/** The one table of what each code means: its text, and whether it is transient or final. */
export const codeInfo: Readonly<Record<ErrorCodeName, CodeInfo>> = {
  OK: { text: 'ok' },
  SYSTEMERROR: { text: 'system error' },
  RUNTIMEINCONSISTENCY: { text: 'runtime inconsistency' },
  DATAINCONSISTENCY: { text: 'data inconsistency' },
  CONNECTIONLOSS: { text: 'connection loss', retriable: true },
  MARSHALLINGERROR: { text: 'error marshalling data' },
  UNIMPLEMENTED: { text: 'unimplemented' },
  // In this library, the caller's own deadline ran out (a lock's acquire timeout, a recipe's
  // wait): sending again cannot help.
  OPERATIONTIMEOUT: { text: 'operation timeout' },
  BADARGUMENTS: { text: 'bad arguments' },
  UNKNOWNSESSION: { text: 'unknown session' },
  NEWCONFIGNOQUORUM: {
    text: 'no quorum of new config is connected and up-to-date with the leader',
  },
  RECONFIGINPROGRESS: { text: 'another reconfiguration is in progress' },
  APIERROR: { text: 'API error' },
  NONODE: { text: 'no node' },
  NOAUTH: { text: 'not authenticated' },
  BADVERSION: { text: 'bad version' },
  NOCHILDRENFOREPHEMERALS: { text: 'ephemeral nodes may not have children' },
  NODEEXISTS: { text: 'node exists' },
  NOTEMPTY: { text: 'directory not empty' },
  SESSIONEXPIRED: { text: 'session expired', sessionOver: true },
  INVALIDCALLBACK: { text: 'invalid callback' },
  INVALIDACL: { text: 'invalid ACL' },
  AUTHFAILED: { text: 'authentication failed', sessionOver: true },
  // The request reached a server the session had left: not applied; the next connection takes it.
  SESSIONMOVED: { text: 'session moved', retriable: true },
  // A write reached a read-only server: not applied; it can succeed once a read-write server is
  // reachable (the recipes wait for one).
  NOTREADONLY: { text: 'not a read-only call', retriable: true },
  EPHEMERALONLOCALSESSION: { text: 'ephemeral node on local session' },
  NOWATCHER: { text: 'no watcher' },
  REQUESTTIMEOUT: { text: 'request timeout', retriable: true },
  RECONFIGDISABLED: { text: 'reconfig is disabled' },
  SESSIONCLOSEDREQUIRESASLAUTH: {
    text: 'session closed because client failed to authenticate',
    sessionOver: true,
  },
  QUOTAEXCEEDED: { text: 'quota has exceeded' },
  THROTTLEDOP: { text: 'op throttled due to high load', retriable: true },
};

function codesWith(trait: 'retriable' | 'sessionOver'): readonly ErrorCodeName[] {
  return Object.freeze(
    (Object.keys(codeInfo) as ErrorCodeName[]).filter((code) => codeInfo[code][trait] === true),
  );
}

/** Codes after which a call may succeed if tried again (see `ZooKeeperError.retriable`). */
export const RETRIABLE_CODES: readonly ErrorCodeName[] = codesWith('retriable');

/** Codes that mean the session is over (see `ZooKeeperError.sessionOver`). */
export const SESSION_OVER_CODES: readonly ErrorCodeName[] = codesWith('sessionOver');

/** The Java name of a code (`NONODE`), or `UNKNOWN(<n>)` for a code not in the table. */
export function errorCodeName(errno: number): ZooKeeperErrorCode {
  return namesByNumber.get(errno) ?? `UNKNOWN(${errno})`;
}

/** Whether `code` is a name of the table (OK included). */
export function isKnownName(code: string): code is ErrorCodeName {
  return Object.hasOwn(ErrorCode, code);
}

/** The number inside `UNKNOWN(<n>)`, or undefined. */
export function parseUnknown(code: string): number | undefined {
  const m = /^UNKNOWN\((-?\d+)\)$/.exec(code);
  return m ? Number(m[1]) : undefined;
}

/** The message of an error made from a bare code: `NONODE: no node at /a (getData)`. */
export function describeCode(code: string, errno: number, path?: string, op?: string): string {
  const base = isKnownName(code) ? codeInfo[code].text : `unknown error code ${errno}`;
  let text = `${code}: ${base}`;
  if (path !== undefined) text += ` at ${path}`;
  if (op !== undefined) text += ` (${op})`;
  return text;
}
