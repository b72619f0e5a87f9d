// The test files that need a ZooKeeper the harness starts itself (they start, stop, pause or kill
// servers, or need the TLS, SASL or super-user set-up of one), found by reading the files: a test
// file needs one when it, or a test-side module it imports, calls startStandalone, startEnsemble
// or requireManaged. With ZOOKEEPER_CONNECT (an external server) these files are left out of the
// run, and the run names them (vitest.config.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const MANAGED_CALL = /\b(startStandalone|startEnsemble|requireManaged)\s*\(/;
const RELATIVE_IMPORT = /\bfrom\s+'(\.{1,2}\/[^']+)'/g;

/** Every `*.test.ts` under `dir`, relative to `root`, `/`-separated. */
export function testFiles(root: string, dir = 'test'): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) found.push(path);
    }
  };
  walk(dir);
  return found.sort();
}

/** The test files (relative to `root`) that need a server the harness manages. */
export function filesNeedingManagedServer(root: string): string[] {
  return filesCalling(root, MANAGED_CALL);
}

/** The harness calls that reach a ZooKeeper: the shared server or one of a test's own. */
export const SERVER_CALL = /\b(sharedServer|startStandalone|startEnsemble|requireManaged)\s*\(/;

/**
 * The test files (relative to `root`) that make a call matching `call`, themselves or through a
 * test-side module they import (not the harness, which defines the calls).
 */
export function filesCalling(root: string, call: RegExp): string[] {
  const harness = resolve(root, 'test/harness');
  const testDir = resolve(root, 'test');
  const verdicts = new Map<string, boolean>();
  const needs = (file: string, seen: Set<string>): boolean => {
    const known = verdicts.get(file);
    if (known !== undefined) return known;
    if (seen.has(file)) return false;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    let result = call.test(text);
    for (const [, spec] of text.matchAll(RELATIVE_IMPORT)) {
      if (result) break;
      const target = resolve(dirname(file), (spec as string).replace(/\.js$/, '.ts'));
      // The harness defines these calls; its own modules are not a test's use of them.
      if (!target.startsWith(testDir) || target.startsWith(harness) || !existsSync(target))
        continue;
      result = needs(target, seen);
    }
    verdicts.set(file, result);
    return result;
  };
  return testFiles(root).filter((file) => needs(resolve(root, file), new Set()));
}
