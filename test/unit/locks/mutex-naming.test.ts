// Mutex node names by `naming` (Curator's `_c_<uuid>-lock-<seq>`, kazoo's `<uuid>__lock__<seq>`)
// and the typed error for an unknown one, as the in-process server sees them (a real Client).
// Interop with real Curator and kazoo processes: test/interop.
import { describe, expect, it } from 'vitest';
import { Mutex } from '../../../src/locks/index.js';
import { inProcessServer } from './in-process.js';

describe('Mutex naming (in-process server)', () => {
  it("names its node Curator's way by default", async () => {
    const zk = await (await inProcessServer()).connect();
    const lease = await new Mutex(zk, '/m').acquire();
    expect(lease.path).toMatch(/^\/m\/_c_[0-9a-f-]{36}-lock-\d{10}$/);
    await lease.release();
  });

  it("names its node kazoo's way with naming 'kazoo'", async () => {
    const zk = await (await inProcessServer()).connect();
    const lease = await new Mutex(zk, '/k', { naming: 'kazoo' }).acquire();
    expect(lease.path).toMatch(/^\/k\/[0-9a-f]{32}__lock__\d{10}$/);
    expect(lease.path).not.toContain('-lock-');
    await lease.release();
  });

  it('refuses an unknown naming with a BADARGUMENTS error', async () => {
    const zk = await (await inProcessServer()).connect();
    expect(() => new Mutex(zk, '/x', { naming: 'zookeeper' as unknown as 'kazoo' })).toThrow(
      expect.objectContaining({ code: 'BADARGUMENTS' }),
    );
  });
});
