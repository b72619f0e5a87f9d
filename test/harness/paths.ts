import { randomBytes } from 'node:crypto';

/** A fresh absolute znode path such as `/test-3f9c1a2b7d4e`, meant as a per-test chroot. */
export function uniquePath(prefix = 'test'): string {
  return `/${prefix}-${randomBytes(6).toString('hex')}`;
}
