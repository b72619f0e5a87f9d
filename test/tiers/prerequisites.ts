// What `npm test` needs from the machine, asked before anything slow runs, so that a machine
// without them hears it in one message within seconds: a ZooKeeper (a local install, Docker, or
// ZOOKEEPER_CONNECT), and for the interop and TLS tests Curator with a JDK, kazoo and openssl.
// `.ci/run` installs them all on Debian.
import { execFileSync } from 'node:child_process';
import { HOW_TO_GET_ZOOKEEPER } from '../harness/errors.js';
import { detectSource, externalConnectString } from '../harness/source.js';
import { curatorMissing } from '../interop/curator.js';
import { kazooMissing } from '../interop/kazoo.js';

/** One thing the suite needs that this machine lacks: what, which tests need it, how to get it. */
export interface Missing {
  readonly what: string;
  readonly neededBy: string;
  readonly detail: string;
}

/** Everything the whole suite needs and this machine lacks (empty when nothing is missing). */
export async function missingPrerequisites(): Promise<Missing[]> {
  const missing: Missing[] = [];
  if (externalConnectString() === undefined) {
    try {
      await detectSource();
    } catch (error) {
      missing.push({
        what: 'ZooKeeper',
        neededBy: 'the integration, interop and soak tiers, the package and runtime tests',
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }
  const curator = curatorMissing();
  if (curator !== undefined)
    missing.push({ what: 'Curator and a JDK', neededBy: 'the interop tier', detail: curator });
  const kazoo = kazooMissing();
  if (kazoo !== undefined)
    missing.push({ what: 'kazoo', neededBy: 'the interop tier', detail: kazoo });
  if (!hasOpenssl()) {
    missing.push({
      what: 'openssl',
      neededBy: 'the TLS tests (integration tier, runtime tests)',
      detail: 'no `openssl` on PATH: install the Debian package openssl',
    });
  }
  return missing;
}

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The one message naming everything missing and how to get it. */
export function describeMissing(missing: readonly Missing[]): string {
  const lines = [
    `npm test needs ${missing.length === 1 ? 'one thing' : `${missing.length} things`} this machine lacks:`,
  ];
  for (const { what, neededBy, detail } of missing) {
    lines.push(`  - ${what} (for ${neededBy}):`, ...indent(detail, '      '));
  }
  const zookeeper = missing.find(({ what }) => what === 'ZooKeeper');
  if (zookeeper !== undefined && !zookeeper.detail.includes(HOW_TO_GET_ZOOKEEPER)) {
    lines.push(...indent(HOW_TO_GET_ZOOKEEPER, '      '));
  }
  lines.push(
    'On Debian or Ubuntu, .ci/run installs all of them (apt-get install zookeeper',
    'libcurator-recipes-java python3-kazoo openssl, and a JDK). Without them, `npm run test:unit`',
    'runs the unit tier (no server, no JVM), and `npm run test:integration` needs only ZooKeeper.',
  );
  return lines.join('\n');
}

function indent(text: string, prefix: string): string[] {
  return text.split('\n').map((line) => `${prefix}${line}`);
}
