// What the fault controls of both kinds of test server take: session and client targets, times.
import { makeError } from '../protocol/errors.js';
import type { ClientTarget, SessionTarget } from './types.js';

/** @internal The id of a session target. */
export function sessionIdOf(target: SessionTarget): bigint {
  const id = typeof target === 'bigint' ? target : target.sessionId;
  if (typeof id !== 'bigint')
    throw makeError('BADARGUMENTS', 'a session is a bigint id or a client with a sessionId');
  return id;
}

/** @internal A key naming what a fault applies to ('all', a client, a session). */
export function keyOf(target: SessionTarget | ClientTarget | undefined): string {
  if (target === undefined) return 'all';
  if (typeof target === 'object' && 'client' in target) return `client:${target.client}`;
  return `session:${sessionIdOf(target)}`;
}

/** @internal `ms`, or a typed error when it is not a finite number >= 0. */
export function nonNegative(what: string, ms: number): number {
  if (!(ms >= 0) || !Number.isFinite(ms))
    throw makeError('BADARGUMENTS', `${what}: ms must be a finite number >= 0, got ${ms}`);
  return ms;
}

/** @internal The error of a refused in-memory connection, as a socket's. */
export function refused(address: string, why: string): Error {
  return Object.assign(new Error(`connect ECONNREFUSED ${address} (${why})`), {
    code: 'ECONNREFUSED',
  });
}
