// TimeLease on the real server: one holder until the end (kazoo's NonBlockingLease layout), renewal
// by the same id, takeover after the end, slots (MultiNonBlockingLease), the holder's bytes as
// kazoo writes them, and a lease that outlives its holder's session.
import { describe, expect, it } from 'vitest';
import { LEASE_HOLDER_NODE, TimeLease } from '../../../src/recipes/index.js';
import { encodeHolder, formatEnd } from '../../../src/recipes/time-lease.js';
import { newClient, recipePath } from './helpers.js';

const HOUR = 3_600_000;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A clock the test moves by hand. */
function clock(start = Date.UTC(2026, 10, 28, 12, 0, 0, 750)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('TimeLease', () => {
  it('one holder until the end; the same id renews; another id takes over only after the end', async () => {
    const [a, b] = [await newClient(), await newClient()];
    const path = recipePath('hourly');
    const time = clock();
    const first = new TimeLease(a, path, { duration: HOUR, id: 'host-a', now: time.now });
    const second = new TimeLease(b, path, { duration: HOUR, id: 'host-b', now: time.now });

    const grant = await first.obtain({ timeout: 10_000 });
    expect(grant).toEqual({
      holder: 'host-a',
      // Whole seconds, as kazoo writes the end.
      end: new Date(Date.UTC(2026, 10, 28, 13, 0, 0)),
      path: `${path}/${LEASE_HOLDER_NODE}`,
    });
    const { data } = await a.getData(`${path}/${LEASE_HOLDER_NODE}`);
    expect(text(data)).toBe('{"version": 1, "holder": "host-a", "end": "2026-11-28T13:00:00"}');

    expect(await second.obtain({ timeout: 10_000 })).toBeNull();
    time.advance(30 * 60_000);
    expect((await first.obtain())?.end).toEqual(new Date(Date.UTC(2026, 10, 28, 13, 30, 0)));
    expect(await second.obtain()).toBeNull();
    expect(await second.holders()).toEqual([
      { holder: 'host-a', end: new Date(Date.UTC(2026, 10, 28, 13, 30, 0)) },
    ]);
    time.advance(HOUR);
    expect(await second.holders()).toEqual([null]);
    expect((await second.obtain())?.holder).toBe('host-b');
    expect(await first.obtain()).toBeNull();
    // The mutex nodes of the looks are gone; only the holder node stays.
    expect(await a.getChildren(path)).toEqual([LEASE_HOLDER_NODE]);
  });

  it('slots: up to `slots` holders, each on <path>/<n> (MultiNonBlockingLease)', async () => {
    const zk = await newClient();
    const path = recipePath('pool');
    const time = clock();
    const lease = (id: string) =>
      new TimeLease(zk, path, { duration: HOUR, id, slots: 2, now: time.now });
    expect((await lease('a').obtain())?.path).toBe(`${path}/0/${LEASE_HOLDER_NODE}`);
    expect((await lease('b').obtain())?.path).toBe(`${path}/1/${LEASE_HOLDER_NODE}`);
    expect(await lease('c').obtain()).toBeNull();
    // A holder renews its own slot, not another's.
    expect((await lease('b').obtain())?.path).toBe(`${path}/1/${LEASE_HOLDER_NODE}`);
    expect((await lease('a').holders()).map((h) => h?.holder)).toEqual(['a', 'b']);
  });

  it('outlives the session that obtained it: the lease is time, not a session', async () => {
    const a = await newClient();
    const path = recipePath('outlives');
    const time = clock();
    await new TimeLease(a, path, { duration: HOUR, id: 'a', now: time.now }).obtain();
    await a.close();
    const b = await newClient();
    expect(
      await new TimeLease(b, path, { duration: HOUR, id: 'b', now: time.now }).obtain(),
    ).toBeNull();
  });

  it('leaves a holder node it cannot read alone, and refuses bad options', async () => {
    const zk = await newClient();
    const path = recipePath('foreign');
    const lease = new TimeLease(zk, path, { duration: HOUR, id: 'a' });
    await lease.obtain();
    await zk.setData(`${path}/${LEASE_HOLDER_NODE}`, '{"version": 2, "holder": "x"}');
    expect(await lease.obtain()).toBeNull();
    expect(() => new TimeLease(zk, path, { duration: 0, id: 'a' })).toThrow(/duration/);
    expect(() => new TimeLease(zk, path, { duration: HOUR, id: '' })).toThrow(/id/);
    expect(() => new TimeLease(zk, path, { duration: HOUR, id: 'a', slots: 0 })).toThrow(/slots/);
    expect(() => new TimeLease(zk, 'rel', { duration: HOUR, id: 'a' })).toThrow(/invalid path/);
  });

  it("writes kazoo's bytes: Python json.dumps separators, non-ASCII escaped, ends cut to seconds", () => {
    expect(text(encodeHolder('hôte-ü', '2026-01-02T03:04:05'))).toBe(
      '{"version": 1, "holder": "h\\u00f4te-\\u00fc", "end": "2026-01-02T03:04:05"}',
    );
    expect(formatEnd(Date.UTC(2026, 0, 2, 3, 4, 5, 999))).toBe('2026-01-02T03:04:05');
  });
});
