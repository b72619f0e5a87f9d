// kazoo lock peers: checks that python3-kazoo is installed and starts peers in Python.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LockPeer } from './peer.js';

/** Debian's interpreter: python3-kazoo installs for it, not for whatever python3 is first on PATH. */
export const PYTHON = '/usr/bin/python3';

/**
 * kazoo's lock recipes, as the peer uses them: Lock, Lock with `extra_lock_patterns=['-lock-']`,
 * ReadLock, WriteLock.
 */
export type KazooRecipe = 'mutex' | 'mutex-extra' | 'read' | 'write';

let checked = false;

/**
 * Throws, naming the package, when kazoo cannot be imported by Debian's python3: CI installs it,
 * so a missing one is a failure, not a skip.
 */
export function requireKazoo(): void {
  if (checked) return;
  const missing = kazooMissing();
  if (missing !== undefined) throw new Error(missing);
  checked = true;
}

/**
 * Why Debian's python3 cannot import kazoo, as a sentence naming the package, or undefined when
 * it can. `npm test` asks this before it starts (test/tiers/prerequisites.ts).
 */
export function kazooMissing(): string | undefined {
  try {
    execFileSync(PYTHON, ['-c', 'import kazoo.client, kazoo.recipe.lock'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim() ?? String(error);
    return (
      `kazoo interop tests need the Debian package python3-kazoo for ${PYTHON} ` +
      `(.ci/run installs it): ${stderr || String(error)}`
    );
  }
}

/**
 * The arguments of Debian's python3 running python/`script` with `args`, unbuffered (-u) so that
 * every reply line reaches us at once, and writing no bytecode (-B) into the source tree. Throws,
 * naming the package, when kazoo is missing.
 */
export function pythonArgs(script: string, ...args: string[]): string[] {
  requireKazoo();
  return ['-u', '-B', fileURLToPath(new URL(`./python/${script}`, import.meta.url)), ...args];
}

/** Starts a kazoo contender on `path` (connected when this resolves). */
export function startKazooPeer(
  connectString: string,
  path: string,
  recipe: KazooRecipe,
): Promise<LockPeer> {
  const args = pythonArgs('lock_peer.py', connectString, path, recipe);
  return LockPeer.start({ name: `kazoo ${recipe}`, command: PYTHON, args });
}

/** Starts a kazoo `Party` (or, `shallow`, a `ShallowParty`) on `path` with `identifier`. */
export function startKazooParty(
  connectString: string,
  path: string,
  kind: 'party' | 'shallow',
  identifier: string,
): Promise<LockPeer> {
  const args = pythonArgs('party_peer.py', connectString, path, kind, identifier);
  return LockPeer.start({ name: `kazoo ${kind}`, command: PYTHON, args });
}
