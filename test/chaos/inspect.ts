// What the lock paths hold once the workload has stopped: contender nodes (with their owners)
// and the data watches every member still keeps on them (`wchp`).
import type { Client } from '../../src/index.js';
import { fourLetterWord, type ZkEnsemble } from '../harness/index.js';
import { hexId, pause } from './basics.js';
import type { LockPaths } from './workload.js';

/** The directories whose children are contender nodes. */
export function contenderDirs(paths: LockPaths): string[] {
  return [paths.mutex, paths.rw, `${paths.sem}/locks`, `${paths.sem}/leases`];
}

export interface Leftovers {
  nodes: { path: string; owner: string }[];
  watches: { member: number; path: string; session: string }[];
  /** Members whose `wchp` could not be read. */
  unreadable: number[];
}

export async function leftovers(
  observer: Client,
  ensemble: ZkEnsemble,
  paths: LockPaths,
  root: string,
): Promise<Leftovers> {
  const nodes: Leftovers['nodes'] = [];
  for (const dir of contenderDirs(paths)) {
    let children: string[];
    try {
      children = await observer.getChildren(dir);
    } catch (error) {
      if ((error as { code?: string }).code === 'NONODE') continue;
      throw error;
    }
    for (const child of children) {
      const path = `${dir}/${child}`;
      const stat = await observer.exists(path);
      if (stat) nodes.push({ path, owner: hexId(stat.ephemeralOwner) });
    }
  }
  const watches: Leftovers['watches'] = [];
  const unreadable: number[] = [];
  for (const member of ensemble.members) {
    try {
      const text = await fourLetterWord(member.host, member.port, 'wchp');
      for (const entry of parseWchp(text)) {
        if (entry.path === root || entry.path.startsWith(`${root}/`))
          watches.push({ member: member.index, ...entry });
      }
    } catch {
      unreadable.push(member.index);
    }
  }
  return { nodes, watches, unreadable };
}

/** `wchp` output: a path line, then one tab-indented session id per watcher. */
export function parseWchp(text: string): { path: string; session: string }[] {
  const out: { path: string; session: string }[] = [];
  let path: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('/')) path = line;
    else if (path && line.startsWith('0x')) out.push({ path, session: line });
  }
  return out;
}

/** Polls until nothing is left or `limitMs` passes; returns what is left then. */
export async function settle(
  observer: Client,
  ensemble: ZkEnsemble,
  paths: LockPaths,
  root: string,
  limitMs: number,
): Promise<Leftovers> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    let found: Leftovers | undefined;
    try {
      found = await leftovers(observer, ensemble, paths, root);
    } catch {
      // The observer lost its connection for a moment: look again.
    }
    const clean =
      found &&
      found.nodes.length === 0 &&
      found.watches.length === 0 &&
      found.unreadable.length === 0;
    if (found && (clean || Date.now() >= deadline)) return found;
    if (!found && Date.now() >= deadline)
      return { nodes: [], watches: [], unreadable: ensemble.members.map((m) => m.index) };
    await pause(250);
  }
}
