// Mutex node names by `naming` (Curator's `_c_<uuid>-lock-<seq>`, kazoo's `<uuid>__lock__<seq>`)
// and the typed error for an unknown one, against the scripted client (scripted-client.ts).
// Interop with real Curator and kazoo processes: test/interop.
import { describe, expect, it } from 'vitest';
import { Mutex } from '../../../src/locks/index.js';
import { ScriptedServer } from './scripted-client.js';

describe('Mutex naming (scripted client)', () => {
  it("names its node Curator's way by default", async () => {
    const server = new ScriptedServer();
    const lease = await new Mutex(server.connect(), '/m').acquire();
    expect(lease.path).toMatch(/^\/m\/_c_[0-9a-f-]{36}-lock-\d{10}$/);
    await lease.release();
  });

  it("names its node kazoo's way with naming 'kazoo'", async () => {
    const server = new ScriptedServer();
    const lease = await new Mutex(server.connect(), '/k', { naming: 'kazoo' }).acquire();
    expect(lease.path).toMatch(/^\/k\/[0-9a-f]{32}__lock__\d{10}$/);
    expect(lease.path).not.toContain('-lock-');
    await lease.release();
  });

  it('refuses an unknown naming with a BADARGUMENTS error', () => {
    const server = new ScriptedServer();
    expect(
      () => new Mutex(server.connect(), '/x', { naming: 'zookeeper' as unknown as 'kazoo' }),
    ).toThrow(expect.objectContaining({ code: 'BADARGUMENTS' }));
  });
});
