// MD5 (RFC 1321) over bytes. DIGEST-MD5 needs it and WebCrypto has no MD5, so it is written here:
// plain Uint8Array/Int32 arithmetic that runs the same on Node, Bun, Deno and workerd, no Buffer.
// It is used for SASL's challenge/response only, never as a security primitive on its own.

/** Left-rotation amounts per round step (four per round). */
const SHIFTS = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21] as const;

/** K[i] = floor(|sin(i + 1)| * 2^32), as RFC 1321 defines the table (checked by its test vectors). */
const K = Int32Array.from({ length: 64 }, (_, i) =>
  Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32),
);

/** The 16-byte MD5 digest of `message`. */
export function md5(message: Uint8Array): Uint8Array {
  // Padding: 0x80, zeros up to 56 mod 64, then the bit length as a 64-bit little-endian number.
  const length = message.length;
  const padded = new Uint8Array((((length + 8) >>> 6) + 1) * 64);
  padded.set(message);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, (length * 8) >>> 0, true);
  view.setUint32(padded.length - 4, Math.floor(length / 2 ** 29), true);

  let a0 = 0x67452301;
  let b0 = 0xefcdab89 | 0;
  let c0 = 0x98badcfe | 0;
  let d0 = 0x10325476;
  const words = new Int32Array(16);
  for (let block = 0; block < padded.length; block += 64) {
    for (let j = 0; j < 16; j++) words[j] = view.getInt32(block + j * 4, true);
    let a = a0;
    let b = b0;
    let c = c0;
    let d = d0;
    for (let i = 0; i < 64; i++) {
      let f: number;
      let g: number;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) & 15;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) & 15;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) & 15;
      }
      const sum = (a + f + K[i]! + words[g]!) | 0;
      const shift = SHIFTS[(i >>> 4) * 4 + (i & 3)]!;
      a = d;
      d = c;
      c = b;
      b = (b + ((sum << shift) | (sum >>> (32 - shift)))) | 0;
    }
    a0 = (a0 + a) | 0;
    b0 = (b0 + b) | 0;
    c0 = (c0 + c) | 0;
    d0 = (d0 + d) | 0;
  }
  const digest = new Uint8Array(16);
  const out = new DataView(digest.buffer);
  out.setInt32(0, a0, true);
  out.setInt32(4, b0, true);
  out.setInt32(8, c0, true);
  out.setInt32(12, d0, true);
  return digest;
}

/** Lower-case hex, as DIGEST-MD5 writes digests. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
