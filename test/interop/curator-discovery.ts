// Curator's service discovery and GroupMember in a JVM (java/DiscoveryPeer.java), compiled once
// per content hash against the Curator jars plus curator-x-discovery and Jackson.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { javaArgs, peerClasses } from './curator.js';
import { LockPeer } from './peer.js';

const JAVA_DIR = '/usr/share/java';
/** What curator-x-discovery needs beyond the Curator jars, and the package providing each. */
const JARS = [
  { jar: 'curator-x-discovery.jar', pkg: 'libcurator-discovery-java' },
  { jar: 'jackson-databind.jar', pkg: 'libjackson2-databind-java' },
  { jar: 'jackson-core.jar', pkg: 'libjackson2-core-java' },
  { jar: 'jackson-annotations.jar', pkg: 'libjackson2-annotations-java' },
] as const;

/** The extra jars' paths; throws, naming the packages, when one is missing (never a skip). */
function discoveryJars(): string[] {
  const paths = JARS.map(({ jar }) => join(JAVA_DIR, jar));
  const missing = JARS.filter((_, i) => !existsSync(paths[i]!));
  if (missing.length > 0) {
    throw new Error(
      `Curator discovery interop tests need ${missing.map(({ jar }) => jar).join(', ')} in ` +
        `${JAVA_DIR}: install ${[...new Set(missing.map(({ pkg }) => pkg))].join(', ')}`,
    );
  }
  return paths;
}

/** A Curator ServiceDiscovery on `basePath` (and a GroupMember on demand), in its own JVM. */
export async function startDiscoveryPeer(
  connectString: string,
  basePath: string,
): Promise<LockPeer> {
  const jars = discoveryJars();
  const classes = [peerClasses('DiscoveryPeer', jars), ...jars];
  const args = javaArgs(classes, 'DiscoveryPeer', connectString, basePath);
  return LockPeer.start({ name: 'curator discovery', command: 'java', args });
}
