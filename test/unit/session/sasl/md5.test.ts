// MD5 written in TypeScript (WebCrypto has none): the RFC 1321 appendix A.5 test suite, plus every
// length around the 64-byte block and padding boundaries checked against node:crypto.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { md5, toHex } from '../../../../src/session/sasl/md5.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('md5', () => {
  it('gives the RFC 1321 test-suite digests', () => {
    const vectors: [string, string][] = [
      ['', 'd41d8cd98f00b204e9800998ecf8427e'],
      ['a', '0cc175b9c0f1b6a831c399e269772661'],
      ['abc', '900150983cd24fb0d6963f7d28e17f72'],
      ['message digest', 'f96b697d7cb7938d525a2f31aaf161d0'],
      ['abcdefghijklmnopqrstuvwxyz', 'c3fcd3d76192e4007dfb496cca67e13b'],
      [
        'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
        'd174ab98d277d9f5a5611c2c9f419d9f',
      ],
      [
        '12345678901234567890123456789012345678901234567890123456789012345678901234567890',
        '57edf4a22be3c955ac49da2e2107b67a',
      ],
    ];
    for (const [input, digest] of vectors) expect(toHex(md5(utf8(input))), input).toBe(digest);
  });

  it('matches node:crypto at every length across the block and padding boundaries', () => {
    const bytes = new Uint8Array(300);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) & 0xff;
    for (let length = 0; length <= bytes.length; length++) {
      const slice = bytes.subarray(0, length);
      expect(toHex(md5(slice)), `length ${length}`).toBe(
        createHash('md5').update(slice).digest('hex'),
      );
    }
  });

  it('hashes a view into a larger buffer by its own bytes only', () => {
    const backing = utf8('xxabcxx');
    expect(toHex(md5(backing.subarray(2, 5)))).toBe('900150983cd24fb0d6963f7d28e17f72');
  });
});
