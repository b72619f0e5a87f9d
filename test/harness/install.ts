import { existsSync, readdirSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import {
  findLocalInstall as findWith,
  type InstallProbe,
  type LocalInstall,
} from '../../src/testing/real/install.js';

export type { LocalInstall };

const probe: InstallProbe = {
  get env() {
    return process.env;
  },
  exists: existsSync,
  isFile: (path) => {
    try {
      return statSync(path).isFile();
    } catch {
      return false;
    }
  },
  list: (dir) => readdirSync(dir),
  join,
  delimiter,
};

/**
 * Finds a local ZooKeeper: `ZOOKEEPER_HOME` (a release tarball with lib/*.jar) first, then Debian's
 * /usr/share/java/zookeeper.jar. Returns a reason string when there is none. The same finder
 * as `startServer({ kind: 'real' })` of zookeeper-ts/testing.
 */
export function findLocalInstall(): LocalInstall | string {
  return findWith(probe);
}
