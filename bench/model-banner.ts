// The banner of a benchmark run against the in-process model instead of ZooKeeper.

/** Said at the start of a run on the model and at the top of its report. */
export const MODEL_BANNER = [
  '*** NOT ZOOKEEPER: these figures are against the in-process model server of zookeeper-ts/testing',
  '*** (no ZooKeeper was found: no local install with Java, no Docker engine, no --server). They',
  "*** show each client's own cost side by side on one server; a real ZooKeeper's figures differ.",
  '*** For the comparison against ZooKeeper: apt-get install zookeeper (or ZOOKEEPER_HOME), or --server.',
].join('\n');
