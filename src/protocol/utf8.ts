// The strings of requests and replies (a node's path, a notification's, a listing's names): on
// Node encoded and decoded in place by the native calls its Buffer makes, elsewhere by a
// TextEncoder and TextDecoder.

const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/** Node's `Buffer.prototype.utf8Slice`, called on any Uint8Array: the bytes from start to end. */
type Utf8Slice = (this: Uint8Array, start: number, end: number) => string;

/**
 * Byte sequences whose decoding must match the decoder's before the slice is trusted: plain and
 * multi-byte text, a truncated sequence, stray continuation and invalid bytes, an encoded
 * surrogate, an overlong form, a BOM that is not leading.
 */
const PROOFS: readonly (readonly number[])[] = [
  [0x2f, 0x61, 0x2f, 0x62],
  [0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80],
  [0x61, 0xe2, 0x82],
  [0x80, 0x61, 0xbf, 0xff, 0xfe, 0x62],
  [0xed, 0xa0, 0x80, 0x61],
  [0xc0, 0xaf, 0xe0, 0x80, 0xaf],
  [0xf4, 0x90, 0x80, 0x80, 0x61],
  [0x61, 0xef, 0xbb, 0xbf, 0x62],
];

/** Node's Buffer, where the process runs on Node (not Bun's or Deno's Buffer of their own). */
function nodeBuffer(): { utf8Slice?: unknown; utf8Write?: unknown } | undefined {
  const g = globalThis as {
    Buffer?: { prototype?: { utf8Slice?: unknown; utf8Write?: unknown } };
    process?: { versions?: { node?: string; bun?: string } };
    Deno?: unknown;
  };
  const versions = g.process?.versions;
  if (versions?.node === undefined || versions.bun !== undefined || g.Deno !== undefined) {
    return undefined;
  }
  return g.Buffer?.prototype;
}

/**
 * Node's slice, or undefined elsewhere. A TextDecoder's decode costs a view of the bytes and,
 * on Node, a JavaScript layer of argument checks before the same native decoding (invalid
 * sequences replaced alike); at 256 sessions a lock's strings were a visible share of the
 * reply path. Bun and Deno have a Buffer of their own making, so only Node's is taken, and only
 * when it decodes the proofs above as the decoder does.
 */
function nodeSlice(): Utf8Slice | undefined {
  const slice = nodeBuffer()?.utf8Slice;
  if (typeof slice !== 'function') return undefined;
  try {
    for (const proof of PROOFS) {
      const bytes = new Uint8Array(proof);
      if (slice.call(bytes, 0, bytes.length) !== decoder.decode(bytes)) return undefined;
    }
  } catch {
    return undefined;
  }
  return slice as Utf8Slice;
}

const slice = nodeSlice();

/**
 * The text of `bytes[start..end)` (in range: the caller checked), as `TextDecoder('utf-8')`
 * decodes it: invalid sequences replaced, a leading BOM dropped.
 */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  // A leading BOM is the decoder's to drop (the slice keeps it): rare, so it goes there.
  if (slice !== undefined && !(bytes[start] === 0xef && bytes[start + 1] === 0xbb)) {
    return slice.call(bytes, start, end);
  }
  return decoder.decode(new Uint8Array(bytes.buffer, bytes.byteOffset + start, end - start));
}

/**
 * Node's `Buffer.prototype.utf8Write`, called on any Uint8Array: writes `text` at `at`, at most
 * `max` bytes (never a partial character), lone surrogates as U+FFFD; returns the bytes written.
 */
export type Utf8Write = (this: Uint8Array, text: string, at: number, max: number) => number;

/** Strings whose encoding must match the encoder's before the write is trusted. */
const TEXT_PROOFS: readonly string[] = ['/a/b', 'aé€😀', 'a\ud800b', '\udfff', 'x\ud83d', ''];

/**
 * Node's write, or undefined elsewhere. Cheaper than a JavaScript loop over the characters for a
 * lock's paths (a node's path is built by concatenation, and the loop's first read flattens it
 * into a copy) and than TextEncoder.encodeInto's layer of checks. Taken only when it encodes the
 * proofs above, at the very end of the bytes too, as the encoder does.
 */
function nodeWrite(): Utf8Write | undefined {
  const write = nodeBuffer()?.utf8Write;
  if (typeof write !== 'function') return undefined;
  try {
    for (const text of TEXT_PROOFS) {
      const expected = encoder.encode(text);
      const bytes = new Uint8Array(expected.length + 2);
      const written = write.call(bytes, text, 2, text.length * 3) as number;
      if (written !== expected.length) return undefined;
      for (let i = 0; i < written; i++) if (bytes[2 + i] !== expected[i]) return undefined;
    }
  } catch {
    return undefined;
  }
  return write as Utf8Write;
}

/** Node's in-place UTF-8 write (see {@link nodeWrite}), or undefined where it is not to be used. */
export const utf8Write: Utf8Write | undefined = nodeWrite();
