/**
 * Real-ZooKeeper test harness. Test-only (Node APIs), never imported by src/.
 *
 * Servers come from ZOOKEEPER_CONNECT (external: nothing is started), else a Docker engine
 * (standalone servers only), else a local install (ZOOKEEPER_HOME or Debian's zookeeper package).
 */
export { killAllChildren } from './cleanup.js';
export { DEFAULT_SUPER, superDigestOf } from './config.js';
export { startEnsemble } from './ensemble.js';
export { HarnessUnavailableError } from './errors.js';
export {
  fourLetterWord,
  parseMntr,
  parseMode,
  SERVER_MODES,
  type ServerMode,
  serverMode,
} from './four-letter.js';
export { uniquePath } from './paths.js';
export { freePort, LOOPBACK } from './ports.js';
export { type FreezeMode, TcpProxy } from './proxy.js';
export { writeJaasFile } from './sasl.js';
export { type SharedServer, sharedServer } from './shared.js';
export {
  detectSource,
  dockerEngineAvailable,
  requireManaged,
  type ServerSource,
} from './source.js';
export { startStandalone } from './standalone.js';
export type { ClientAuth } from './tls.js';
export type { ServerOptions, TlsInfo, ZkEnsemble, ZkMember, ZkServer } from './types.js';
export { waitFor } from './wait.js';
