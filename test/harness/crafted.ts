// A standalone server started from a crafted data directory: a snapshot written by
// test/fixtures/java/WrapSnapshot.java whose node has a child counter (cversion) chosen by the
// test, e.g. just below the signed 32-bit wrap of the sequence numbers.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshDir } from './cleanup.js';
import { findLocalInstall } from './install.js';
import { DEFAULT_START_TIMEOUT_MS, LocalNode } from './node.js';
import { freePorts } from './ports.js';
import type { ZkServer } from './types.js';

const SOURCE = fileURLToPath(new URL('../fixtures/java/WrapSnapshot.java', import.meta.url));
const JARS = ['zookeeper.jar', 'zookeeper-jute.jar', 'slf4j-api.jar', 'slf4j-nop.jar'].map((jar) =>
  join('/usr/share/java', jar),
);

/** Compiles WrapSnapshot.java once per source version; returns the class directory. */
function helperClasses(): string {
  const missing = JARS.filter((jar) => !existsSync(jar));
  if (missing.length > 0)
    throw new Error(`the crafted-snapshot helper needs ${missing.join(', ')}`);
  const hash = createHash('sha256').update(readFileSync(SOURCE)).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `zkts-wrapsnapshot-${hash}`);
  if (!existsSync(join(dir, 'WrapSnapshot.class'))) {
    // Compile next to it and rename into place: concurrent runs never see half a directory.
    const staging = mkdtempSync(`${dir}-staging-`);
    try {
      execFileSync('javac', ['-nowarn', '-d', staging, '-cp', JARS.join(':'), SOURCE], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      renameSync(staging, dir);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(join(dir, 'WrapSnapshot.class'))) throw error;
    }
  }
  return dir;
}

/**
 * Starts a standalone server (local install only) whose data directory holds the persistent node
 * `path` (and its ancestors) with its child counter at `cversion`: its next sequential child is
 * numbered `cversion`. Close it with `close()`.
 */
export async function startStandaloneWithCversion(
  path: string,
  cversion: number,
): Promise<ZkServer> {
  const install = findLocalInstall();
  if (typeof install === 'string') throw new Error(install);
  const classes = helperClasses();
  const [client] = await freePorts(1);
  const node = new LocalNode({
    dir: freshDir('crafted'),
    install,
    opts: {},
    ports: { client: client! },
    ready: async (n) => {
      await n.waitForMode(['standalone'], DEFAULT_START_TIMEOUT_MS);
      await n.waitAlive(DEFAULT_START_TIMEOUT_MS);
    },
  });
  try {
    // The constructor wrote zoo.cfg with dataDir <dir>/data; the snapshot goes there before start.
    execFileSync(
      install.java,
      [
        '-cp',
        [classes, ...JARS].join(':'),
        'WrapSnapshot',
        join(node.dir, 'data'),
        path,
        String(cversion),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    await node.start();
    return node;
  } catch (error) {
    await node.close();
    throw error;
  }
}
