// ReadWriteLock options as a user sees them, against the scripted client (scripted-client.ts):
// Curator's node names and the data in them, the refusals and timeouts naming the recipe, which
// leases may re-enter which side, the loss policy, and the queue order option. The readers' and
// writers' decisions: contenders.test.ts.
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { LockTimeoutError, ReadWriteLock } from '../../../src/locks/index.js';
import { ScriptedServer, scriptedSessions } from './scripted-client.js';

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

describe('ReadWriteLock options (scripted client)', () => {
  it('names its nodes as Curator does and stores the data in them', async () => {
    const [server, client] = scriptedSessions(1);
    const rw = new ReadWriteLock(client, '/rw', { data: 'me' });
    const read = await rw.read.acquire();
    expect(read.path).toMatch(/^\/rw\/_c_[0-9a-f-]{36}-__READ__\d{10}$/);
    expect(text(server.nodes.get(read.path)!.data)).toBe('me');
    await read.release();
    const write = await rw.write.acquire();
    expect(write.path).toMatch(/^\/rw\/_c_[0-9a-f-]{36}-__WRIT__\d{10}$/);
    expect(text(server.nodes.get(write.path)!.data)).toBe('me');
    await write.release();
    const plain = await new ReadWriteLock(client, '/rw').read.acquire();
    expect(server.nodes.get(plain.path)!.data).toHaveLength(0);
    await plain.release();
  });

  it('refuses an invalid path naming the ReadWriteLock; a second write acquire times out saying how to re-enter', async () => {
    const client = new ScriptedServer().connect();
    expect(() => new ReadWriteLock(client, 'x')).toThrow(
      expect.objectContaining({
        code: 'BADARGUMENTS',
        message: expect.stringMatching(/^ReadWriteLock: invalid path "x"/),
      }),
    );
    const rw = new ReadWriteLock(client, '/t');
    const write = await rw.write.acquire();
    const error = await rw.write.acquire({ timeout: 20 }).catch((e) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect(error.message).toContain('which this ReadWriteLock object already holds');
    await write.release();
  });

  it('a write lease re-enters both sides, a read lease only the read side', async () => {
    const client = new ScriptedServer().connect();
    const rw = new ReadWriteLock(client, '/re');
    const write = await rw.write.acquire();
    const readInWrite = await rw.read.acquire({ reentrantFrom: write });
    expect(readInWrite.path).toBe(write.path);
    const writeAgain = await rw.write.acquire({ reentrantFrom: write });
    expect(writeAgain.path).toBe(write.path);
    await writeAgain.release();
    await readInWrite.release();
    await write.release();
    const read = await rw.read.acquire();
    const readAgain = await rw.read.acquire({ reentrantFrom: read });
    expect(readAgain.path).toBe(read.path);
    await expect(rw.write.acquire({ reentrantFrom: read })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
    await readAgain.release();
    await read.release();
  });

  it("keeps its leases through a suspension with lossPolicy 'expired' (lost by default)", async () => {
    const client = new ScriptedServer().connect();
    const kept = await new ReadWriteLock(client, '/k', { lossPolicy: 'expired' }).write.acquire();
    const lost = await new ReadWriteLock(client, '/l').read.acquire();
    const [keptSignal, lostSignal] = [kept.signal, lost.signal];
    client.setState('suspended');
    client.setState('connected');
    expect(keptSignal.aborted).toBe(false);
    expect(lostSignal.aborted).toBe(true);
    await kept.release();
    await lost.release();
  });

  it("orders the queue by sequence number by default, by sequence text with 'interop'", async () => {
    const [, a, b] = scriptedSessions(2);
    await b.create2('/q', undefined, { mode: CreateMode.PERSISTENT });
    // Another process's writer at the counter's limit, created before ours.
    await b.create2('/q/_c_z-__WRIT__2147483647', undefined, { mode: CreateMode.EPHEMERAL });
    expect(await new ReadWriteLock(a, '/q').read.tryAcquire()).toBeNull();
    const lease = await new ReadWriteLock(a, '/q', { sequenceOrder: 'interop' }).read.tryAcquire();
    expect(lease).not.toBeNull();
    await lease!.release();
  });
});
