// ACLs on the command line: `scheme:id:perms[,scheme:id:perms...]`, perms from `cdrwa`.
import { type ACL, Perms } from '../index.js';
import { UsageError } from './errors.js';

const LETTERS: readonly [string, number][] = [
  ['c', Perms.CREATE],
  ['d', Perms.DELETE],
  ['r', Perms.READ],
  ['w', Perms.WRITE],
  ['a', Perms.ADMIN],
];

export function permsToString(perms: number): string {
  return LETTERS.filter(([, bit]) => (perms & bit) !== 0)
    .map(([letter]) => letter)
    .join('');
}

function parsePerms(text: string, entry: string): number {
  let perms = 0;
  for (const letter of text.toLowerCase()) {
    const bit = LETTERS.find(([l]) => l === letter)?.[1];
    if (bit === undefined) {
      throw new UsageError(`bad permission "${letter}" in ACL entry "${entry}" (use cdrwa)`);
    }
    perms |= bit;
  }
  return perms;
}

const ENTRY = /^([^:,]+):(.*):([a-zA-Z]*)$/s;

/**
 * Parses `world:anyone:cdrwa,digest:user:hash:r`. Ids may hold colons (digest, ip with port)
 * and commas (x509 distinguished names): a comma only starts a new entry once the text so far
 * is a whole `scheme:id:perms`.
 */
export function parseAcl(text: string): ACL[] {
  const entries: string[] = [];
  let pending = '';
  for (const piece of text.split(',')) {
    pending = pending === '' ? piece : `${pending},${piece}`;
    if (ENTRY.test(pending.trim())) {
      entries.push(pending.trim());
      pending = '';
    }
  }
  if (pending !== '' || entries.length === 0) {
    throw new UsageError(`bad ACL "${text}": want scheme:id:perms[,...], e.g. world:anyone:cdrwa`);
  }
  return entries.map((entry) => {
    const [, scheme, id, perms] = ENTRY.exec(entry) as unknown as [string, string, string, string];
    return { perms: parsePerms(perms, entry), id: { scheme, id } };
  });
}

export function formatAclEntry(entry: ACL): string {
  return `${entry.id.scheme}:${entry.id.id}:${permsToString(entry.perms)}`;
}
