// Which paths a TreeCache mirrors: under its root, within its depth, accepted by its filter (the
// node and every ancestor below the root). Reads of a path outside that scope are refused, since
// the cache cannot answer for them (kazoo's TreeCache raises too).
import { childPath } from '../coordination/naming.js';
import { makeError } from '../protocol/errors.js';
import { pathProblem } from '../protocol/paths.js';

/** The mirrored part of the tree. */
export class CacheScope {
  /** The scope of a cache of `root` with `options`; throws BADARGUMENTS for a bad root or option. */
  static of(
    root: string,
    options: { maxDepth?: number; filter?: (path: string) => boolean },
  ): CacheScope {
    const { maxDepth = Number.POSITIVE_INFINITY, filter = () => true } = options;
    const problem = pathProblem(root);
    if (problem !== null) {
      throw makeError('BADARGUMENTS', `TreeCache: invalid root "${String(root)}": ${problem}`, {
        path: root,
      });
    }
    if (!(typeof maxDepth === 'number' && maxDepth >= 0)) {
      throw makeError(
        'BADARGUMENTS',
        `maxDepth must be a non-negative number, got ${String(maxDepth)}`,
      );
    }
    if (typeof filter !== 'function') throw makeError('BADARGUMENTS', 'filter must be a function');
    return new CacheScope(root, maxDepth, filter);
  }

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

/** The names of the children of `path` among `paths`, sorted. */
export function childNames(paths: Iterable<string>, path: string): string[] {
  const prefix = path === '/' ? '/' : `${path}/`;
  const names: string[] = [];
  for (const key of paths) {
    if (key.startsWith(prefix) && key.length > prefix.length && !key.includes('/', prefix.length)) {
      names.push(key.slice(prefix.length));
    }
  }
  return names.sort();
}
