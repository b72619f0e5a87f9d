// Path helpers and contender parsing edge cases of src/coordination/naming.ts (the mutation run found
// these unexercised: a name without the lock name whose tail happens to be a sequence number).
import { describe, expect, it } from 'vitest';
import { childPath, parentOf, parseContender } from '../../../src/coordination/naming.js';

describe('lock naming helpers', () => {
  it('parentOf: the root for a top-level node, else the path up to the last slash', () => {
    expect(parentOf('/a')).toBe('/');
    expect(parentOf('/a/b')).toBe('/a');
    expect(parentOf('/a/b/c')).toBe('/a/b');
  });

  it('childPath: no doubled slash at the root', () => {
    expect(childPath('/', 'x')).toBe('/x');
    expect(childPath('/a', 'x')).toBe('/a/x');
  });

  it('parseContender: a name without any lock name is not a contender, even if it ends in a sequence', () => {
    expect(parseContender('abcd0000000001', ['lock-'])).toBeUndefined();
    expect(parseContender('_c_x-lock-0000000001', ['lock-'])?.sequence).toBe(1);
  });
});
