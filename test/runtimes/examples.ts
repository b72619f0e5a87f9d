// Runs the workerd examples (examples/workerd) the way their README says, with this run's ports
// and ZooKeeper address, and checks what they answer. A Node client of the library checks the
// server side (the ephemeral node that must outlive a request).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../src/index.js';
import { freePort } from '../harness/index.js';
import { bundleFor, REPO } from './processes.js';
import { SessionTap } from './session-tap.js';
import { startWorkerd } from './workerd.js';

export interface ExampleCheck {
  name: string;
  ok: boolean;
  detail: string;
}

type Json = Record<string, unknown>;

async function getJson(url: string): Promise<Json> {
  const response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  const body = await response.text();
  if (!response.ok) throw new Error(`${url} -> ${response.status}: ${body}`);
  return JSON.parse(body) as Json;
}

function expect(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

export async function exampleChecks(
  workerd: string,
  connectString: string,
  dir: string,
): Promise<{ checks: ExampleCheck[]; log: string }> {
  // Bundled with no externals and run with no compatibility flags: what a user's build gets.
  await bundleFor('examples/workerd/request-scoped.ts', join(dir, 'dist', 'request-scoped.js'));
  await bundleFor('examples/workerd/durable-object.ts', join(dir, 'dist', 'durable-object.js'));
  const [requestPort, objectPort] = [await freePort(), await freePort()];
  // The Workers reach ZooKeeper through a tap that reads each session's id and password as the
  // server hands them out, so the check can expire the Durable Object's session from outside.
  const [zkHost, zkPort] = connectString.split(',')[0]!.split(':') as [string, string];
  const tap = await SessionTap.start(zkHost, Number(zkPort));
  const config = readFileSync(join(REPO, 'examples/workerd/config.capnp'), 'utf8')
    .replaceAll('127.0.0.1:2181', tap.connectString)
    .replaceAll('127.0.0.1:8787', `127.0.0.1:${requestPort}`)
    .replaceAll('127.0.0.1:8788', `127.0.0.1:${objectPort}`);
  const configFile = join(dir, 'examples.capnp');
  writeFileSync(configFile, config);

  const server = await startWorkerd(workerd, configFile, [requestPort, objectPort]);
  const checks: ExampleCheck[] = [];
  const check = async (name: string, body: () => Promise<void>) => {
    try {
      await body();
      checks.push({ name, ok: true, detail: '' });
    } catch (error) {
      checks.push({
        name,
        ok: false,
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  };
  const observer = await connect(connectString);
  let log = '';
  try {
    const requestBase = `http://127.0.0.1:${requestPort}`;
    await check('workerd request-scoped: connect, work, close', async () => {
      const { children } = await getJson(`${requestBase}/children`);
      expect(Array.isArray(children) && children.includes('zookeeper'), 'no /zookeeper child');
    });
    await check('workerd request-scoped: resume a session in a later request', async () => {
      const begun = await getJson(`${requestBase}/begin`);
      const id = BigInt(`0x${String(begun.id)}`);
      const node = String(begun.node);
      // The request is over and its socket closed; the session and its node must still be there.
      const stat = await observer.exists(node);
      expect(stat?.ephemeralOwner === id, 'the ephemeral node did not outlive the request');
      const query = new URLSearchParams({
        id: String(begun.id),
        password: String(begun.password),
        node,
      });
      const resumed = await getJson(`${requestBase}/resume?${query}`);
      expect(resumed.resumed === true, `not resumed: ${JSON.stringify(resumed)}`);
      expect(resumed.nodeStillOurs === true, `node lost: ${JSON.stringify(resumed)}`);
      expect((await observer.exists(node)) === null, 'node outlived the resumed session close');
    });

    const objectBase = `http://127.0.0.1:${objectPort}`;
    await check('workerd Durable Object: session and lock kept across idle requests', async () => {
      const a1 = await getJson(`${objectBase}/acquire?holder=a`);
      expect(a1.held === true, `a did not get the free lock: ${JSON.stringify(a1)}`);
      const b1 = await getJson(`${objectBase}/acquire?holder=b`);
      expect(b1.held === false, `b got a held lock: ${JSON.stringify(b1)}`);
      expect(b1.session !== a1.session, 'two objects share a session');
      // Idle for longer than the session timeout: only the object's ping timer, running
      // between requests, keeps its session (and so its lock) alive.
      await new Promise((resolve) => setTimeout(resolve, Number(a1.sessionTimeout) + 2_000));
      const a2 = await getJson(`${objectBase}/status?holder=a`);
      expect(a2.session === a1.session, 'a lost its session between requests');
      expect(a2.held === true && a2.requests === 2, `a: ${JSON.stringify(a2)}`);
      // b waits inside its request; a releases from another request.
      const waiting = getJson(`${objectBase}/acquire?holder=b&wait=30000`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const a3 = await getJson(`${objectBase}/release?holder=a`);
      expect(a3.held === false, `a still holds: ${JSON.stringify(a3)}`);
      const b2 = await waiting;
      expect(b2.held === true && b2.session === b1.session, `b: ${JSON.stringify(b2)}`);
      expect(BigInt(String(b2.fencingToken)) > BigInt(String(a1.fencingToken)), 'token order');
      const b3 = await getJson(`${objectBase}/release?holder=b`);
      expect(b3.held === false, 'b still holds');
    });
    await check('workerd Durable Object: lock service kept across a session expiry', async () => {
      const c1 = await getJson(`${objectBase}/acquire?holder=c`);
      expect(c1.held === true, `c did not get the free lock: ${JSON.stringify(c1)}`);
      const old = tap.sessions.get(String(c1.session));
      expect(old !== undefined, `the tap did not see session ${String(c1.session)}`);
      // The server expires the object's session: the object is cut off, another client takes the
      // session over and closes it, then the object may reconnect (and hears it expired).
      tap.refuse(true);
      tap.cut();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const thief = await connect(connectString, { session: old!, renewSession: false });
      await thief.close();
      tap.refuse(false);
      // The same object, the same client: a new session, the old lock lost, the lock free.
      let c2: Json = {};
      const deadline = Date.now() + 30_000;
      for (;;) {
        c2 = await getJson(`${objectBase}/status?holder=c`);
        // While the new session is being opened the client reports id 0.
        const renewed = c2.session !== c1.session && c2.session !== '0';
        if (renewed || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(
        c2.session !== c1.session && c2.session !== '0',
        `no new session: ${JSON.stringify(c2)}`,
      );
      expect(
        c2.held === false,
        `the lease of the expired session still counts: ${JSON.stringify(c2)}`,
      );
      const c3 = await getJson(`${objectBase}/acquire?holder=c&wait=10000`);
      expect(c3.held === true && c3.session === c2.session, `c: ${JSON.stringify(c3)}`);
      expect(BigInt(String(c3.fencingToken)) > BigInt(String(c1.fencingToken)), 'token order');
      const owners = await observer.getChildren('/workers-example/lock');
      expect(owners.length === 1, `lock nodes: ${owners.join(', ')}`);
      const stat = await observer.exists(`/workers-example/lock/${owners[0]}`);
      expect(
        stat?.ephemeralOwner.toString(16) === c3.session,
        "the lock node is not the new session's",
      );
      const c4 = await getJson(`${objectBase}/release?holder=c`);
      expect(c4.held === false, 'c still holds');
    });
  } finally {
    await observer.close();
    log = await server.stop();
    await tap.close();
  }
  for (const failed of checks.filter((c) => !c.ok)) {
    failed.detail += `\nworkerd log:\n${log.slice(-1500)}`;
  }
  return { checks, log };
}
