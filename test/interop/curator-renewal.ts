import { javaArgs, peerClasses } from './curator.js';
import { LockPeer, within } from './peer.js';

/** A term of leadership as one side saw it: from `from` until `to` (wall-clock ms). */
export interface Term {
  from: number;
  to: number;
}

/** A running Curator LeaderLatch (started at once) and what the test asks it. */
export class CuratorLatch {
  private constructor(private readonly peer: LockPeer) {}

  static async start(
    connectString: string,
    path: string,
    id: string,
    sessionTimeoutMs: number,
  ): Promise<CuratorLatch> {
    const session = String(sessionTimeoutMs);
    const args = javaArgs(
      [peerClasses('LatchRenewalPeer')],
      'LatchRenewalPeer',
      connectString,
      path,
      id,
      session,
    );
    const peer = await LockPeer.start({ name: 'curator latch', command: 'java', args });
    return new CuratorLatch(peer);
  }

  /** Curator's `hasLeadership()` now. */
  async leading(): Promise<boolean> {
    return (await within(this.peer.request('leading'), 10_000, 'leading')) === 'leading true';
  }

  /** The current ZooKeeper session id, hex. */
  async session(): Promise<string> {
    const line = await within(this.peer.request('session'), 10_000, 'session');
    return line.split(' ')[1] ?? '';
  }

  /** Curator's terms so far (sampled every ms in the JVM); an open term ends at `until`. */
  async terms(until: number): Promise<Term[]> {
    const line = await within(this.peer.request('history'), 10_000, 'history');
    return termsOf(
      line
        .split(' ')
        .slice(1)
        .map((entry) => {
          const [at, value] = entry.split(':');
          return { at: Number(at), leading: value === 'true' };
        }),
      until,
    );
  }

  close(): Promise<void> {
    return this.peer.close();
  }
}

/** Changes of a leadership flag (in time order) as terms; an open one ends at `until`. */
export function termsOf(
  changes: readonly { at: number; leading: boolean }[],
  until: number,
): Term[] {
  const terms: Term[] = [];
  let from: number | undefined;
  for (const { at, leading } of changes) {
    if (leading && from === undefined) from = at;
    else if (!leading && from !== undefined) {
      terms.push({ from, to: at });
      from = undefined;
    }
  }
  if (from !== undefined) terms.push({ from, to: until });
  return terms;
}

/** Pairs of terms of the two sides that overlap in time. */
export function overlaps(a: readonly Term[], b: readonly Term[]): [Term, Term][] {
  return a.flatMap((x) =>
    b
      .filter((y) => Math.max(x.from, y.from) < Math.min(x.to, y.to))
      .map((y): [Term, Term] => [x, y]),
  );
}
