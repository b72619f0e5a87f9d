// Node 20+: a session, a registration node, a watch and a lock.
//   npx tsx examples/node.ts 127.0.0.1:2181
// In your project the imports are 'zookeeper-ts' and 'zookeeper-ts/locks'.
import { CreateMode, connect } from '../src/index.js';
import { Mutex, withLock } from '../src/locks/index.js';

const zk = await connect(process.argv[2] ?? '127.0.0.1:2181', { sessionTimeout: 10_000 });
try {
  console.log(`session 0x${zk.sessionId.toString(16)} on ${zk.server}`);

  // An ephemeral node: it disappears with this session, so others can see who is alive.
  const base = `/examples-node-${crypto.randomUUID().slice(0, 8)}`;
  await zk.create(base);
  const me = await zk.create(`${base}/member-`, 'node', { mode: CreateMode.EPHEMERAL_SEQUENTIAL });

  // A one-shot watch fires once, on the next change.
  const changed = new Promise((resolve) => zk.getData(me, { watch: resolve }));
  await zk.setData(me, 'busy');
  console.log('watch saw', await changed);

  // One holder at a time, across processes; the lease's fencing token grows with every holder.
  await withLock(new Mutex(zk, `${base}/lock`), async (lease) => {
    console.log(`holding ${lease.path} (fencing token ${lease.fencingToken})`);
  });

  await zk.delete(me);
  await zk.delete(`${base}/lock`).catch(() => {}); // a container node; the server may remove it first
  await zk.delete(base);
  console.log('done');
} finally {
  await zk.close();
}
