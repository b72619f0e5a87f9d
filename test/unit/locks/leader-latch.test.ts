// LeaderLatch against a small in-memory fake of one election directory, for the interleavings a
// real server cannot be made to produce on demand (a read-only server). The real-server behaviour
// is proven in test/integration/locks/leader-latch.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionState, Stat, StateChange } from '../../../src/client/types.js';
import { type RecipeClient, ZooKeeperError } from '../../../src/index.js';
import { LeaderLatch } from '../../../src/locks/index.js';
import { nodeStat } from './scripted-server.js';

/** One session on one election directory: sequential creates, listing, reads, state changes. */
class FakeElection {
  state: SessionState = 'connected';
  readonly sessionId = 1n;
  readonly chroot = '';
  readonly nodes = new Map<string, { data: Uint8Array; stat: Stat }>();
  private seq = 0;
  private readonly listeners = new Set<(state: SessionState, change: StateChange) => void>();
  /** Called before each create; throw to refuse it. */
  beforeCreate: () => void = () => {};

  setState(state: SessionState): void {
    const previous = this.state;
    this.state = state;
    for (const listener of [...this.listeners]) listener(state, { previous });
  }

  readonly client: RecipeClient = {
    get state() {
      return fake.state;
    },
    sessionId: 1n,
    lastZxid: 0n,
    chroot: '',
    closing: false,
    on: (event, listener) => {
      // This fake is never closed: a 'closing' listener is never called.
      if (event !== 'state') return () => {};
      const onState = listener as (state: SessionState, change: StateChange) => void;
      this.listeners.add(onState);
      return () => this.listeners.delete(onState);
    },
    create2: async (path, data) => {
      this.beforeCreate();
      const full = `${path}${String(this.seq++).padStart(10, '0')}`;
      const bytes =
        typeof data === 'string' ? new TextEncoder().encode(data) : (data ?? new Uint8Array());
      const node = { data: bytes, stat: nodeStat(BigInt(100 + this.seq), this.sessionId) };
      this.nodes.set(full, node);
      return { path: full, stat: node.stat };
    },
    delete: async (path) => {
      this.nodes.delete(path);
    },
    exists: async (path) => this.nodes.get(path)?.stat ?? null,
    getData: async (path) => {
      const node = this.nodes.get(path);
      if (!node) throw new ZooKeeperError('NONODE', `no node ${path}`);
      return node;
    },
    getChildren: async (dir) =>
      [...this.nodes.keys()]
        .filter((p) => p.startsWith(`${dir}/`))
        .map((p) => p.slice(dir.length + 1)),
    sync: async () => {},
    // Not faked: a latch sends none of these.
    setData: () => Promise.reject(new ZooKeeperError('UNIMPLEMENTED', 'not faked')),
    multi: () => Promise.reject(new ZooKeeperError('UNIMPLEMENTED', 'not faked')),
    watch: () => {
      throw new ZooKeeperError('UNIMPLEMENTED', 'not faked');
    },
  };
}
let fake: FakeElection;

describe('LeaderLatch (fake server)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('on a read-only server, waits for a read-write one instead of failing', async () => {
    vi.useFakeTimers();
    fake = new FakeElection();
    fake.state = 'connected-readonly';
    let refused = 0;
    fake.beforeCreate = () => {
      if (fake.state === 'connected-readonly') {
        refused++;
        throw new ZooKeeperError('NOTREADONLY', 'not a read-only call');
      }
    };
    const latch = new LeaderLatch(fake.client, '/e', { id: 'a' });
    latch.start();
    const leading = latch.leadership({ timeout: 2_000 });
    // Several retry pauses (100-200 ms each) on the faked clock, short of the 2 s bound: a loop
    // would have asked again by now.
    await vi.advanceTimersByTimeAsync(1_500);
    expect(refused).toBe(1); // no retry loop while read-only
    expect(latch.state).toBe('started');
    fake.setState('connected');
    const leadership = await leading;
    expect(leadership.id).toBe('a');
    await latch.close();
    expect(fake.nodes.size).toBe(0);
  });
});
