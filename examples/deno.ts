// Deno 2: needs network permission for the ZooKeeper address, nothing else.
//   deno run --allow-net=127.0.0.1 --sloppy-imports examples/deno.ts 127.0.0.1:2181
// (--sloppy-imports only because this repository's sources import './x.js' for './x.ts'; an
// installed package is plain JavaScript: import { connect } from 'npm:zookeeper-ts'.)
import { connect } from '../src/index.js';

// In a Deno project, Deno's own types declare this.
declare const Deno: { args: string[]; version: { deno: string } };

const zk = await connect(Deno.args[0] ?? '127.0.0.1:2181');
try {
  console.log(`deno ${Deno.version.deno}: session 0x${zk.sessionId.toString(16)}`);
  // A persistent watch is an async iterator: it keeps firing until it is ended.
  const path = `/examples-deno-${crypto.randomUUID().slice(0, 8)}`;
  const events = zk.watch(path);
  await zk.create(path, 'one');
  await zk.setData(path, 'two');
  await zk.delete(path);
  let seen = 0;
  for await (const event of events) {
    console.log('event', event.type, event.path);
    if (++seen === 3) break; // ending the loop removes the watch on the server
  }
  console.log('done');
} finally {
  await zk.close();
}
