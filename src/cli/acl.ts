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
    if (scheme === 'digest') checkDigestId(id, perms, entry);
    return { perms: parsePerms(perms, entry), id: { scheme, id } };
  });
}

/** What a digest id holds after `USER:`: base64 of a SHA-1 (the server's default digest). */
const SHA1_BASE64 = /^[A-Za-z0-9+/]{27}=$/;

/**
 * A digest id is `USER:base64(sha1(USER:PASSWORD))`; the server refuses any other shape with a
 * bare INVALIDACL, so the mistake (`digest:bob:cdrwa`, a user name alone) is named here.
 */
function checkDigestId(id: string, perms: string, entry: string): void {
  const parts = id.split(':');
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '') return;
  const user = parts[0] || 'USER';
  throw new UsageError(
    `digest ACL entry "${entry}": the id must be USER:base64(sha1(USER:PASSWORD)), e.g. ` +
      `digest:${user}:x1nq8J5GOJVPY6zgzhtTtA9izLc=:${perms || 'cdrwa'}; ` +
      `\`zkts digest ${user}:PASSWORD\` prints it`,
  );
}

/**
 * Entries that are accepted but probably not meant: a digest id whose second half is not a
 * SHA-1 hash (a password typed in clear locks everyone out, as nobody's credentials hash to it).
 */
export function aclWarnings(acl: readonly ACL[]): string[] {
  return acl
    .filter(({ id }) => id.scheme === 'digest' && !SHA1_BASE64.test(id.id.split(':')[1] ?? ''))
    .map(({ id }) => {
      const user = id.id.split(':')[0];
      return (
        `digest ACL id "${id.id}" does not end in base64(sha1) (28 characters): if that is a ` +
        `password, nobody can authenticate as it; \`zkts digest ${user}:PASSWORD\` prints the id`
      );
    });
}

export function formatAclEntry(entry: ACL): string {
  return `${entry.id.scheme}:${entry.id.id}:${permsToString(entry.perms)}`;
}
