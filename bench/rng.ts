// A small seeded PRNG (mulberry32): the same seed gives the same read/write mix and payloads.

export type Rng = () => number;

/** Uniform floats in [0, 1) from a 32-bit seed. */
export function seededRng(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `length` seeded bytes (payloads for setData). */
export function seededBytes(rng: Rng, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(rng() * 256);
  return bytes;
}

/** A derived seed, so each client of a scenario gets its own stream. */
export function deriveSeed(seed: number, index: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + index * 0x27d4eb2d) >>> 0;
}
