// The in-process model server of zookeeper-ts/testing in a process of its own: what `npm run
// bench` measures against on a machine with no ZooKeeper (no local install, no Docker engine, no
// --server). Its own process, so that its CPU is not the client's and can be read from /proc as
// a JVM's is. Prints one JSON line with its connect string, then serves until SIGTERM, SIGINT or
// the end of its standard input (the benchmark that started it is gone).
//   node --import tsx bench/model-server.ts [port]
import { startServer } from '../src/testing/index.js';

const port = Number(process.argv[2] ?? 0);
// ZooKeeper's default tick, as the JVM the benchmark starts: sessions of 4 to 40 s.
const server = await startServer({ kind: 'model', listen: true, port, tickTime: 2000 });
process.stdout.write(`${JSON.stringify({ connectString: server.connectString })}\n`);
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
