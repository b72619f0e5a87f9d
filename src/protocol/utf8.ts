// Decoding the strings of a reply (a node's path, a notification's, a listing's names): on Node
// straight from the bytes by the call its own TextDecoder ends in, elsewhere by a TextDecoder.

const decoder = new TextDecoder('utf-8');

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

/**
 * Node's slice, or undefined elsewhere. A TextDecoder's decode costs a view of the bytes and,
 * on Node, a JavaScript layer of argument checks before the same native decoding (invalid
 * sequences replaced alike); at 256 sessions a lock's strings were a visible share of the
 * reply path. Bun and Deno have a Buffer of their own making, so only Node's is taken, and only
 * when it decodes the proofs above as the decoder does.
 */
function nodeSlice(): Utf8Slice | undefined {
  const g = globalThis as {
    Buffer?: { prototype?: { utf8Slice?: unknown } };
    process?: { versions?: { node?: string; bun?: string } };
    Deno?: unknown;
  };
  const versions = g.process?.versions;
  if (versions?.node === undefined || versions.bun !== undefined || g.Deno !== undefined) {
    return undefined;
  }
  const slice = g.Buffer?.prototype?.utf8Slice;
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
