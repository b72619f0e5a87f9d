// `zkts elect --list`: who leads an election and who is in line, for people and for scripts; and
// the check that turns a missing path into NONODE instead of an empty view.
import { type RecipeClient, ZooKeeperError } from '../index.js';
import { LeaderLatch, LeaderSelector, type Participant } from '../locks/index.js';
import type { Output } from './output.js';

/** Throws NONODE when `path` does not exist: an empty view of a typo must not look like a free lock. */
export async function requireNode(
  client: Pick<RecipeClient, 'exists'>,
  path: string,
  signal: AbortSignal,
): Promise<void> {
  if ((await client.exists(path, { signal })) === null) {
    throw new ZooKeeperError('NONODE', `no node at ${path}`, { path });
  }
}

/** An election as listed: its layout, and its participants in line (the leader first). */
export interface ElectionView {
  path: string;
  /** `latch`: LeaderLatch candidates (`zkts elect`); `selector`: a LeaderSelector's mutex nodes. */
  layout: 'latch' | 'selector';
  participants: Participant[];
}

/**
 * The participants of the election at `path`: LeaderLatch candidates (what `zkts elect` and
 * Curator's LeaderLatch create), or else those of a LeaderSelector election (Curator's, or ours).
 * NONODE when the path does not exist.
 */
export async function listElection(
  client: RecipeClient,
  path: string,
  signal: AbortSignal,
): Promise<ElectionView> {
  await requireNode(client, path, signal);
  // Neither is started: participants() only reads.
  const latch = await new LeaderLatch(client, path).participants();
  if (latch.length > 0) return { path, layout: 'latch', participants: latch };
  const selector = await new LeaderSelector(client, path, { task: () => {} }).participants();
  return { path, layout: selector.length > 0 ? 'selector' : 'latch', participants: selector };
}

export function electionJson(view: ElectionView): Record<string, unknown> {
  const leader = view.participants.find((p) => p.isLeader);
  return {
    path: view.path,
    layout: view.layout,
    leader: leader ? { id: leader.id, path: leader.path } : null,
    participants: view.participants.map((p) => ({ id: p.id, path: p.path, leader: p.isLeader })),
  };
}

export function printElection(out: Output, view: ElectionView): void {
  const [leader] = view.participants;
  if (!leader) {
    out.line(`${view.path}: no leader, no candidates`);
    return;
  }
  const count = view.participants.length;
  out.line(
    `${out.bold(view.path)}: leader ${leader.id || '(no id)'}, ${count - 1} ${count === 2 ? 'candidate' : 'candidates'} in line`,
  );
  const rows = view.participants.map((p, i) => [
    String(i + 1),
    p.isLeader ? out.green('leader') : out.yellow('candidate'),
    p.id || '-',
    p.path.slice(p.path.lastIndexOf('/') + 1),
  ]);
  out.table([['#', 'ROLE', 'ID', 'NODE'], ...rows], ['right', 'left', 'left', 'left']);
}
