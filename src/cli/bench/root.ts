// The bench's own corner of the tree: one root it creates (or finds empty), the nodes it makes
// under it, and their removal. It never deletes a node it did not create.
import { type Client, CreateMode, ZooKeeperError } from '../../index.js';
import { CliError, ExitCode } from '../errors.js';
import { type BenchConfig, lockPaths } from './config.js';
import { rawNode } from './part.js';

/** The root's data: says who wrote it, so a later look at the tree can tell. */
export function rootMarker(runId: string): string {
  return `zkts-bench ${runId}`;
}

const hasCode = (error: unknown, code: string) =>
  error instanceof ZooKeeperError && error.code === code;

/** Nodes this run created, by path, with the czxid that proves a node is still the one we made. */
export class BenchTree {
  private readonly created: { path: string; czxid: bigint; shared: boolean }[] = [];

  constructor(private readonly client: Client) {}

  /** Creates `path` and records it; false when it already existed. */
  private async make(
    path: string,
    data?: Uint8Array | string,
    mode: CreateMode = CreateMode.PERSISTENT,
  ): Promise<boolean> {
    try {
      const { stat } = await this.client.create2(path, data ?? undefined, { mode });
      this.created.push({ path, czxid: stat.czxid, shared: mode === CreateMode.CONTAINER });
      return true;
    } catch (error) {
      if (hasCode(error, 'NODEEXISTS')) return false;
      throw error;
    }
  }

  /**
   * Takes the root: creates its missing ancestors and the root itself with the run's marker. An
   * existing root is used only when it is empty (no data, no children); anything else is refused.
   * Ancestors are container nodes: several runs may share `/zkts-bench`, and the server removes
   * it once the last of them is gone.
   */
  async claim(config: BenchConfig, runId: string): Promise<void> {
    const parts = config.root.split('/').slice(1);
    for (let attempt = 0; ; attempt++) {
      for (let i = 1; i < parts.length; i++) {
        const ancestor = `/${parts.slice(0, i).join('/')}`;
        try {
          await this.make(ancestor, undefined, CreateMode.CONTAINER);
        } catch (error) {
          // Servers before 3.5.3 have no containers.
          if (!hasCode(error, 'UNIMPLEMENTED')) throw error;
          await this.make(ancestor);
        }
      }
      try {
        if (await this.make(config.root, rootMarker(runId))) return;
        break;
      } catch (error) {
        // The server removed an empty container ancestor just now: make it again.
        if (!hasCode(error, 'NONODE') || attempt >= 2) throw error;
      }
    }
    const { data, stat } = await this.client.getData(config.root);
    if (data.length > 0 || stat.numChildren > 0) {
      throw new CliError(
        'NODEEXISTS',
        `${config.root} already holds data zkts bench did not write; choose another --root`,
        ExitCode.NODEEXISTS,
      );
    }
  }

  /** Creates the lock paths (and the raw scenario's nodes) the sessions use. */
  async prepare(config: BenchConfig): Promise<void> {
    const paths =
      config.scenario === 'exclusive'
        ? [] // the exclusive lock is one ephemeral node right under the root
        : lockPaths(config);
    for (const path of paths) {
      await this.make(path);
      if (config.kind.type === 'semaphore') {
        await this.make(`${path}/locks`);
        await this.make(`${path}/leases`);
      }
    }
    if (config.scenario === 'raw') {
      await this.make(`${config.root}/raw`);
      const payload = new Uint8Array(config.payload).fill(0x78);
      await Promise.all(
        Array.from({ length: config.sessions }, (_, i) => this.make(rawNode(config, i), payload)),
      );
    }
  }

  /**
   * Deletes what this run created, deepest first. A node that is no longer ours (deleted and made
   * again by someone else) is left alone, and so is one that now holds nodes we did not create.
   * Returns the paths it had to leave.
   */
  async remove(): Promise<string[]> {
    const left: string[] = [];
    const nodes = [...this.created].sort((a, b) => depth(b.path) - depth(a.path));
    for (const { path, czxid, shared } of nodes) {
      try {
        const stat = await this.client.exists(path);
        if (stat === null) continue;
        if (stat.czxid !== czxid) continue; // not the node we made
        await this.client.delete(path, stat.version);
      } catch (error) {
        if (hasCode(error, 'NONODE')) continue;
        if (hasCode(error, 'NOTEMPTY') || hasCode(error, 'BADVERSION')) {
          if (!shared) left.push(path);
          continue;
        }
        throw error;
      }
    }
    this.created.length = 0;
    return left;
  }
}

function depth(path: string): number {
  return path.split('/').length;
}
