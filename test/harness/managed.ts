import { HarnessUnavailableError, HOW_TO_GET_ZOOKEEPER } from './errors.js';
import type { LocalInstall } from './install.js';
import { detectSource, requireManaged } from './source.js';

export type ManagedSource =
  | { kind: 'docker'; image: string }
  | { kind: 'local'; install: LocalInstall };

/**
 * The backend for a server the harness controls. `needsLocal` names a feature only the local
 * backend has (ensembles, TLS, ...): Docker is then skipped for a local install, or we fail clearly.
 */
export async function managedSource(what: string, needsLocal?: string): Promise<ManagedSource> {
  requireManaged(what);
  const source = await detectSource();
  if (source.kind === 'local') return source;
  if (source.kind === 'docker') {
    if (needsLocal === undefined) return { kind: 'docker', image: source.image };
    if (source.local) return { kind: 'local', install: source.local };
    throw new HarnessUnavailableError(
      `${what} with ${needsLocal} needs a local ZooKeeper install: the Docker backend runs plain standalone servers only.\n${HOW_TO_GET_ZOOKEEPER}`,
    );
  }
  throw new HarnessUnavailableError(
    `${what} cannot use the external ensemble ${source.connectString}`,
  );
}
