// The send time the outbox stamps on what it writes: a request's reply proves the session alive
// as of that time (heartbeat.ts), so it must never be later than the write itself. One clock
// reading serves a whole write; what the routing of a chunk queues is stamped with the chunk's
// arrival time (an earlier time proves less, never more).
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/session/clock.js';
import { Outbox, type OutboxOwner } from '../../../src/session/outbox.js';
import type { Outbound } from '../../../src/session/requests.js';
import type { Connection } from '../../../src/session/transport.js';

/** Lets the outbox's flush microtask run. */
const flushed = () => Promise.resolve().then(() => undefined);

/** A clock that moves on by 1 ms at every reading, and counts them. */
class TickingClock implements Clock {
  reads = 0;
  private time = 100;
  now(): number {
    this.reads++;
    return this.time++;
  }
  setTimeout(): unknown {
    return null;
  }
  clearTimeout(): void {}
}

/**
 * An outbox attached to a connection (its first flush done), recording each written item's stamp
 * and the clock as each write reaches the connection.
 */
async function harness() {
  const clock = new TickingClock();
  const stamps: { frame: Uint8Array; at: number }[] = [];
  const writes: { bytes: Uint8Array; at: number }[] = [];
  const owner: OutboxOwner = {
    clock,
    written(item: Outbound, at: number) {
      stamps.push({ frame: item.frame, at });
    },
  };
  const connection: Connection = {
    write(bytes) {
      writes.push({ bytes, at: clock.now() });
      return undefined;
    },
    chunks: (async function* () {})(),
    close() {},
    closed: new Promise(() => {}),
  };
  const outbox = new Outbox(owner);
  outbox.attach(connection);
  await flushed();
  return { clock, stamps, writes, outbox };
}

const control = (byte: number): Outbound => ({
  kind: 'control',
  frame: new Uint8Array([0, 0, 0, 1, byte]),
});

describe('Outbox send times', () => {
  it('stamps the frames of one write with one clock reading, taken before the write', async () => {
    const { clock, stamps, writes, outbox } = await harness();
    outbox.push(control(1));
    outbox.push(control(2));
    outbox.push(control(3));
    const readsBefore = clock.reads;
    await flushed();
    expect(writes).toHaveLength(1);
    expect(stamps.map((s) => s.frame[4])).toEqual([1, 2, 3]);
    const at = stamps[0]!.at;
    expect(stamps.every((s) => s.at === at)).toBe(true);
    expect(at).toBeLessThan(writes[0]!.at);
    // One reading for the stamps, one by the test's connection.
    expect(clock.reads - readsBefore).toBe(2);
  });

  it('stamps what is queued while a chunk is routed with its arrival time, before the write', async () => {
    const { clock, stamps, writes, outbox } = await harness();
    const arrived = clock.now();
    outbox.hold();
    outbox.push(control(1));
    clock.now(); // time passes while the chunk's other frames are routed
    outbox.push(control(2));
    const readsBefore = clock.reads;
    outbox.release(arrived);
    expect(writes).toHaveLength(1);
    expect(stamps).toEqual([
      { frame: expect.anything(), at: arrived },
      { frame: expect.anything(), at: arrived },
    ]);
    expect(arrived).toBeLessThan(writes[0]!.at);
    // No reading of its own: only the test's connection read the clock.
    expect(clock.reads - readsBefore).toBe(1);
  });

  it('reads the clock again for writes after the release', async () => {
    const { clock, stamps, writes, outbox } = await harness();
    const arrived = clock.now();
    outbox.hold();
    outbox.release(arrived);
    outbox.push(control(1));
    await flushed();
    expect(writes).toHaveLength(1);
    expect(stamps[0]!.at).toBeGreaterThan(arrived);
    expect(stamps[0]!.at).toBeLessThan(writes[0]!.at);
  });
});
