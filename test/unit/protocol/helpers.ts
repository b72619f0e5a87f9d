/** Small shared helpers for the protocol unit tests (not a test file). */

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Prng } from '../../chaos/prng.js';

export function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** Hex to bytes; spaces and '|' separators are ignored. */
export function unhex(text: string): Uint8Array {
  const clean = text.replace(/[\s|]/g, '');
  if (clean.length % 2 !== 0) throw new Error(`odd hex length: ${text}`);
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
export const fromUtf8 = (b: Uint8Array | null): string | null =>
  b === null ? null : new TextDecoder().decode(b);

/** A seeded random source in [0, 1) (the chaos suite's mulberry32), so random tests repeat. */
export function prng(seed: number): () => number {
  const source = new Prng(seed);
  return () => source.next();
}

export interface CapturedExchange {
  label: string;
  op: number;
  xid: number;
  connection: number;
  request: string;
  reply: string;
}

export interface JavaFrames {
  connects: { label: string; connection: number; request: string; response: string }[];
  exchanges: CapturedExchange[];
  auths: CapturedExchange[];
  pings: CapturedExchange[];
  notifications: { connection: number; frame: string }[];
}

const fixturePath = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'fixtures',
  'java-frames.json',
);

let cached: JavaFrames | undefined;

/** The frames recorded by test/fixtures/capture-java-frames.ts. */
export function javaFrames(): JavaFrames {
  cached ??= JSON.parse(readFileSync(fixturePath, 'utf8')) as JavaFrames;
  return cached;
}

/** Drops the 4-byte length prefix of a captured frame, checking it matches. */
export function body(frameHex: string): Uint8Array {
  const bytes = unhex(frameHex);
  const len = new DataView(bytes.buffer).getInt32(0);
  if (len !== bytes.length - 4) throw new Error(`bad captured frame length ${len}`);
  return bytes.subarray(4);
}
