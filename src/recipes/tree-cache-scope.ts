// Which paths a TreeCache mirrors: under its root, within its depth, accepted by its filter (the
// node and every ancestor below the root). Reads of a path outside that scope are refused, since
// the cache cannot answer for them (kazoo's TreeCache raises too).
import { childPath } from '../coordination/naming.js';
import { makeError } from '../protocol/errors.js';

/** The mirrored part of the tree. */
export class CacheScope {
  constructor(
    readonly root: string,
    readonly maxDepth: number,
    private readonly filter: (path: string) => boolean,
  ) {}

  /** How many levels `path` is below the root (0 for the root), or undefined outside it. */
  depthOf(path: string): number | undefined {
    if (path === this.root) return 0;
    const prefix = this.root === '/' ? '/' : `${this.root}/`;
    if (!path.startsWith(prefix) || path.length === prefix.length) return undefined;
    return path.slice(prefix.length).split('/').length;
  }

  /** Whether `path` belongs in the mirror (under the root, within depth, passing the filter). */
  keeps(path: string): boolean {
    const depth = this.depthOf(path);
    if (depth === undefined || depth > this.maxDepth) return false;
    let current = this.root;
    if (!this.filter(current)) return false;
    if (depth === 0) return true;
    const rest = path.slice(this.root === '/' ? 1 : this.root.length + 1);
    for (const part of rest.split('/')) {
      current = childPath(current, part);
      if (!this.filter(current)) return false;
    }
    return true;
  }

  /**
   * Throws BADARGUMENTS unless the cache mirrors `path` (for `children`, also the level below
   * it): a path outside the root, deeper than `maxDepth` or rejected by the filter has no answer
   * in the cache, and answering "missing" would be wrong.
   */
  check(path: string, children: boolean): void {
    const depth = this.depthOf(path);
    let problem: string | undefined;
    if (depth === undefined) problem = `is outside the cache's root ${this.root}`;
    else if (depth + (children ? 1 : 0) > this.maxDepth) {
      problem = children
        ? `has its children below the cache's maxDepth ${this.maxDepth}`
        : `is below the cache's maxDepth ${this.maxDepth}`;
    } else if (!this.keeps(path)) problem = "is rejected by the cache's filter";
    if (problem) throw makeError('BADARGUMENTS', `${path} ${problem}`, { path });
  }
}
