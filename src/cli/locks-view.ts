// How `zkts locks` shows a lock: tables for people, JSON for scripts.
import type { LockContender, LockFolder, LockInspection } from '../locks/index.js';
import { toBase64, utf8OrUndefined } from './data.js';
import { hex, isoTime, type Output } from './output.js';

/** `1.2s`, `3m04s`, `2h05m`: an age that stays short. */
export function formatAge(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  const m = Math.floor(s / 60);
  if (m < 24 * 60) return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(m / 1440)}d${String(Math.floor((m % 1440) / 60)).padStart(2, '0')}h`;
}

/** Node data for a table cell: the text when it is short printable UTF-8, else a byte count. */
function dataCell(data: Uint8Array): string {
  if (data.length === 0) return '-';
  const text = utf8OrUndefined(data);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters would garble the table.
  if (text !== undefined && text.length <= 40 && !/[\u0000-\u001f\u007f]/.test(text)) return text;
  return `(${data.length} bytes)`;
}

export function contenderJson(c: LockContender): Record<string, unknown> {
  return {
    name: c.name,
    path: c.path,
    state: c.state,
    kind: c.kind,
    naming: c.naming ?? null,
    sequence: c.sequence ?? null,
    waitsFor: c.waitsFor ?? null,
    owner: hex(c.owner),
    created: isoTime(c.created),
    ageMs: c.age,
    // Decimal, as ZKTS_FENCING_TOKEN and the library's bigint print it: one format everywhere.
    fencingToken: String(c.fencingToken),
    data: utf8OrUndefined(c.data) ?? null,
    base64: toBase64(c.data),
  };
}

export function inspectionJson(view: LockInspection): Record<string, unknown> {
  return {
    path: view.path,
    holders: view.holders,
    waiting: view.waiting,
    contenders: view.contenders.map(contenderJson),
  };
}

export function folderJson(folder: LockFolder): Record<string, unknown> {
  return {
    path: folder.path,
    layout: folder.layout,
    holders: folder.inspection.holders,
    waiting: folder.inspection.waiting,
    holder: folder.holder ? contenderJson(folder.holder) : null,
  };
}

export function printInspection(out: Output, view: LockInspection): void {
  if (view.contenders.length === 0) {
    out.line(`${view.path}: no holder, nobody waiting`);
    return;
  }
  const election = view.contenders.every((c) => c.kind === 'candidate');
  out.line(
    election
      ? `${out.bold(view.path)}: election, ${view.holders} leader, ${view.waiting} ${view.waiting === 1 ? 'candidate' : 'candidates'} in line (leader first)`
      : `${out.bold(view.path)}: ${view.holders} holding, ${view.waiting} waiting (grant order)`,
  );
  const rows = view.contenders.map((c, i) => [
    String(i + 1),
    stateCell(out, c),
    c.kind,
    c.naming ?? '-',
    hex(c.owner),
    formatAge(c.age),
    String(c.fencingToken),
    dataCell(c.data),
    c.name,
  ]);
  out.table(
    [['#', 'STATE', 'KIND', 'NAMING', 'OWNER', 'AGE', 'TOKEN', 'DATA', 'NODE'], ...rows],
    ['right', 'left', 'left', 'left', 'left', 'right', 'left', 'left', 'left'],
  );
}

/** `holder`/`waiting`, or `leader`/`candidate` for an election's candidates. */
function stateCell(out: Output, c: LockContender): string {
  const leads = c.state === 'holder';
  if (c.kind === 'candidate') return leads ? out.green('leader') : out.yellow('candidate');
  return leads ? out.green('holder') : out.yellow('waiting');
}

export function printFolders(out: Output, root: string, folders: readonly LockFolder[]): void {
  if (folders.length === 0) {
    out.line(`no locks under ${root}`);
    return;
  }
  const rows = folders.map((f) => [
    f.path,
    f.layout,
    String(f.inspection.holders),
    String(f.inspection.waiting),
    f.holder ? hex(f.holder.owner) : '-',
    f.holder ? formatAge(f.holder.age) : '-',
    f.holder ? dataCell(f.holder.data) : '-',
  ]);
  out.table(
    [['LOCK', 'LAYOUT', 'HOLDERS', 'WAITING', 'HOLDER', 'HELD', 'DATA'], ...rows],
    ['left', 'left', 'right', 'right', 'left', 'right', 'left'],
  );
}
