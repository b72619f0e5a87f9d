// User data to bytes: strings are UTF-8; anything else is a clear BADARGUMENTS, never a crash.
import { makeError } from '../protocol/errors.js';

const encoder = new TextEncoder();

export function toBytes(data: unknown, path?: string, op?: string): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (typeof data === 'string') return encoder.encode(data);
  throw makeError(
    'BADARGUMENTS',
    `data must be a Uint8Array or a string, got ${data === null ? 'null' : typeof data}`,
    { path, op },
  );
}
