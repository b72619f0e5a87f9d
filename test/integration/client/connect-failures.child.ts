// Run as a plain Node process (default flags) by unhandled-rejections.test.ts: every failing
// connect below is caught by its caller, so the process must end with status 0. Node's default
// (--unhandled-rejections=throw) turns any promise the library rejects unhandled into exit 1.
import { connect, type Transport, ZooKeeperError } from '../../../src/index.js';

const [refusedPort, liveServer] = process.argv.slice(2) as [string, string];
const auth = [{ scheme: 'digest', credentials: 'a:b' }] as const;

const refusingTransport: Transport = {
  connect: () =>
    Promise.reject(new ZooKeeperError('BADARGUMENTS', 'this transport refuses these settings')),
};

const outcomes = await Promise.all([
  // Nobody listens: connectTimeout ends it while the initial credentials wait.
  connect(`127.0.0.1:${refusedPort}`, { auth: [...auth], connectTimeout: 1_000 }).then(
    () => 'connected',
    (e: { code?: string }) => e.code,
  ),
  // The server answers the resume of an unknown session as expired.
  connect(liveServer, {
    auth: [...auth],
    session: { id: 0x7e57_0000_0000_0001n, password: new Uint8Array(16) },
    connectTimeout: 5_000,
  }).then(
    () => 'connected',
    (e: { code?: string }) => e.code,
  ),
  // The transport refuses its settings.
  connect('127.0.0.1:2181', {
    auth: [...auth],
    transport: refusingTransport,
    connectTimeout: 5_000,
  }).then(
    () => 'connected',
    (e: { code?: string }) => e.code,
  ),
]);
// Leave time for any stray rejection to surface before the process ends on its own.
await new Promise((resolve) => setTimeout(resolve, 300));
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
