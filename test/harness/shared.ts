import { HarnessUnavailableError } from './errors.js';
import { externalConnectString } from './source.js';

/** What the global setup hands to test workers (through the environment, so any runner works). */
export interface SharedServerInfo {
  /** Connect string of the one server shared by the whole run. */
  connectString?: string;
  /** `user:password` that makes a session super on it, when known. */
  superAuth?: string;
  /** True when the harness started it (false for ZOOKEEPER_CONNECT). */
  managed?: boolean;
  /** Why there is no shared server. */
  error?: string;
}

export const SHARED_SERVER_ENV = 'ZKTS_SHARED_SERVER';

export interface SharedServer {
  connectString: string;
  superAuth?: string;
  managed: boolean;
}

/**
 * The server shared by every test file of the run, started once by the vitest global setup (or
 * `ZOOKEEPER_CONNECT`). Give each test its own chroot (see `uniquePath`) instead of its own server.
 * Throws the setup's one clear error when no server could be started.
 */
export function sharedServer(): SharedServer {
  const raw = process.env[SHARED_SERVER_ENV];
  if (raw === undefined) {
    const external = externalConnectString();
    if (external !== undefined) return { connectString: external, managed: false };
    throw new HarnessUnavailableError(
      `no shared ZooKeeper: ${SHARED_SERVER_ENV} is unset. Run the tests through vitest with ` +
        'vitest.config.ts (its globalSetup starts the server), or set ZOOKEEPER_CONNECT.',
    );
  }
  const info = JSON.parse(raw) as SharedServerInfo;
  if (info.connectString === undefined) {
    throw new HarnessUnavailableError(info.error ?? 'the global setup started no ZooKeeper');
  }
  return {
    connectString: info.connectString,
    managed: info.managed ?? false,
    ...(info.superAuth ? { superAuth: info.superAuth } : {}),
  };
}
