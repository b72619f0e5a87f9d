/**
 * Raised when no ZooKeeper can be found or started, or when a test needs a server the harness
 * can control (start, stop, kill) but only an external ensemble is configured.
 */
export class HarnessUnavailableError extends Error {
  override readonly name = 'HarnessUnavailableError';
}

/** How to get a server; every "none found" error ends with this so the fix is one read away. */
export const HOW_TO_GET_ZOOKEEPER = [
  'To run the ZooKeeper tests, do one of:',
  '  - install ZooKeeper locally: apt-get install -y zookeeper (Debian/Ubuntu),',
  '    or unpack a release and set ZOOKEEPER_HOME=/path/to/apache-zookeeper-x.y.z-bin;',
  '  - start a Docker engine (the harness then uses the official `zookeeper` image via testcontainers);',
  '  - or point at a running ensemble: ZOOKEEPER_CONNECT=host:port[,host:port...]',
  '    (tests that start, stop or kill servers need one of the first two).',
].join('\n');
