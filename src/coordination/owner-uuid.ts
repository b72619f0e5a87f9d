// Random version 4 UUIDs as the owner prefixes of lock nodes spell them, made without the
// intermediate strings of `crypto.randomUUID()` plus a template: one prefix per acquisition, and
// at hundreds of acquisitions per second the pieces that runtime joins a UUID from (and the copy
// the template then flattens) were a visible share of the bytes an acquisition allocates.

// The 16 random bytes are drawn afresh for each prefix, not from a pool kept across calls: a
// prefix depends on nothing but `crypto.getRandomValues` at the moment it is made, so a test that
// replaces that function (the simulator seeds it per world) gets the same names on every replay.
const UUID_BYTES = 16;
const random = new Uint8Array(UUID_BYTES);

const HEX_DIGITS = new TextEncoder().encode('0123456789abcdef');
const DASH = 0x2d;
const decoder = new TextDecoder('utf-8');

/** The text of one prefix of each form, written in place, then decoded as one string. */
const curatorText = new TextEncoder().encode('_c_00000000-0000-0000-0000-000000000000-');
const kazooText = new Uint8Array(32);

/** Draws 16 fresh random bytes into `random`, with the version 4 and RFC 4122 variant bits. */
function drawRandom(): void {
  crypto.getRandomValues(random);
  random[6] = (random[6]! & 0x0f) | 0x40;
  random[8] = (random[8]! & 0x3f) | 0x80;
}

/** Writes the 16 bytes of `random` as hex into `out` from `start`, with dashes when `dashed`. */
function writeHex(out: Uint8Array, start: number, dashed: boolean): void {
  let o = start;
  for (let i = 0; i < UUID_BYTES; i++) {
    // The canonical form's dashes come before bytes 4, 6, 8 and 10 (8-4-4-4-12 digits).
    if (dashed && (i === 4 || i === 6 || i === 8 || i === 10)) out[o++] = DASH;
    const byte = random[i]!;
    out[o++] = HEX_DIGITS[byte >> 4]!;
    out[o++] = HEX_DIGITS[byte & 0x0f]!;
  }
}

/** Curator's protected prefix: `_c_` + a random canonical UUID (lower case) + `-`, 40 chars. */
export function curatorOwnerPrefix(): string {
  drawRandom();
  writeHex(curatorText, 3, true);
  return decoder.decode(curatorText);
}

/** kazoo's prefix: a random UUID as 32 lower-case hex digits. */
export function kazooOwnerPrefix(): string {
  drawRandom();
  writeHex(kazooText, 0, false);
  return decoder.decode(kazooText);
}
