// Bun: the same library, run straight from TypeScript. The default transport is node:net (Bun's
// is complete); `bunTransport` uses Bun.connect instead, and an explicit transport always wins.
//   bun examples/bun.ts 127.0.0.1:2181
// In your project: import { connect } from 'zookeeper-ts' (transports: 'zookeeper-ts/transports').
import { connect } from '../src/index.js';
import { Mutex } from '../src/locks/index.js';
import { bunTransport } from '../src/session/transports/index.js';

// In a Bun project, bun-types declares this.
declare const Bun: { argv: string[]; version: string };

const zk = await connect(Bun.argv[2] ?? '127.0.0.1:2181', { transport: bunTransport });
try {
  console.log(`bun ${Bun.version}: session 0x${zk.sessionId.toString(16)}`);
  const path = `/examples-bun-${crypto.randomUUID().slice(0, 8)}`;
  const lease = await new Mutex(zk, path).acquire({ timeout: 5_000 });
  console.log(`holding ${lease.path}`);
  await lease.release();
  await zk.delete(path).catch(() => {}); // a container node; the server may remove it first
  console.log('done');
} finally {
  await zk.close();
}
