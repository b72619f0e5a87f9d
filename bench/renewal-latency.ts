// How long a service is gone after its session expired: from the expiry to the renewed session
// (the client's 'renewed' event), to its LeaderLatch's new candidate node, and to that latch
// leading again (it is the only participant). Against a real server started by the harness.
//   npx tsx bench/renewal-latency.ts [--server-expiries 60] [--client-expiries 30]
//     [--session-timeout 2000]
// Two ways to expire, as users meet them:
// - server: the client is cut off (its proxy refuses), another client resumes the session and
//   closes it (the server has now expired it), the link comes back. t0 = the link back.
// - client: the links go dark (packets dropped) for 1.5 session timeouts: the client declares the
//   session expired after one timeout and the server expires it too; t0 = the link back.
import { parseArgs } from 'node:util';
import { type Client, connect } from '../src/index.js';
import { LeaderLatch } from '../src/locks/index.js';
import { killAllChildren, startStandalone, TcpProxy } from '../test/harness/index.js';

const { values } = parseArgs({
  options: {
    'server-expiries': { type: 'string', default: '60' },
    'client-expiries': { type: 'string', default: '30' },
    'session-timeout': { type: 'string', default: '2000' },
  },
});
const T = Number(values['session-timeout']);

interface Sample {
  renewedMs: number;
  nodeMs: number;
  leadingMs: number;
}

/** Resolves with the time `check` first holds (polled every ms), or rejects after `limitMs`. */
function when(check: () => boolean, limitMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (check()) {
        clearInterval(poll);
        resolve(performance.now());
      } else if (Date.now() - started > limitMs) {
        clearInterval(poll);
        reject(new Error(`not within ${limitMs} ms`));
      }
    }, 1);
  });
}

function stateReached(zk: Client, state: string, limitMs: number): Promise<number> {
  return when(() => zk.state === state, limitMs);
}

async function measureOne(
  zk: Client,
  latch: LeaderLatch,
  proxy: TcpProxy,
  kind: 'server' | 'client',
  serverAddress: string,
): Promise<Sample> {
  await when(() => latch.hasLeadership, 10_000);
  const oldPath = latch.ourPath;
  let renewedAt = Number.NaN;
  const off = zk.on('renewed', () => {
    renewedAt = performance.now();
  });
  let t0: number;
  if (kind === 'server') {
    proxy.refuse(true);
    proxy.cut();
    await stateReached(zk, 'suspended', 10_000);
    const thief = await connect(serverAddress, {
      session: { id: zk.sessionId, password: zk.sessionPassword },
      renewSession: false,
    });
    await thief.close();
    proxy.refuse(false);
    t0 = performance.now();
  } else {
    proxy.freeze('drop');
    await new Promise((resolve) => setTimeout(resolve, 1.5 * T));
    proxy.thaw();
    t0 = performance.now();
  }
  const node = await when(() => latch.ourPath !== undefined && latch.ourPath !== oldPath, 30_000);
  const leading = await when(() => latch.hasLeadership, 30_000);
  off();
  if (Number.isNaN(renewedAt)) throw new Error('no renewed event');
  return { renewedMs: renewedAt - t0, nodeMs: node - t0, leadingMs: leading - t0 };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function line(kind: string, samples: Sample[]): string {
  const cell = (pick: (s: Sample) => number) => {
    const v = samples.map(pick);
    return `p50 ${quantile(v, 0.5).toFixed(0)} / p99 ${quantile(v, 0.99).toFixed(0)} / max ${Math.max(...v).toFixed(0)} ms`;
  };
  return `| ${kind} (${samples.length}) | ${cell((s) => s.renewedMs)} | ${cell((s) => s.nodeMs)} | ${cell((s) => s.leadingMs)} |`;
}

const server = await startStandalone();
try {
  const proxy = await TcpProxy.start(server.host, server.port);
  const zk = await connect(proxy.connectString, { sessionTimeout: T });
  const latch = new LeaderLatch(zk, `/bench-renewal-${process.pid}`);
  latch.start();
  const results: Record<'server' | 'client', Sample[]> = { server: [], client: [] };
  const plan: ['server' | 'client', number][] = [
    ['server', Number(values['server-expiries'])],
    ['client', Number(values['client-expiries'])],
  ];
  for (const [kind, count] of plan) {
    for (let i = 0; i < count; i++) {
      results[kind].push(await measureOne(zk, latch, proxy, kind, server.connectString));
      process.stderr.write('.');
    }
  }
  process.stderr.write('\n');
  await latch.close();
  await zk.close();
  await proxy.close();
  console.log(`session timeout ${T} ms (negotiated ${zk.sessionTimeout} ms)`);
  console.log('| expiry | to renewed | to new candidate node | to leading again |');
  console.log('|---|---|---|---|');
  for (const [kind] of plan) if (results[kind].length > 0) console.log(line(kind, results[kind]));
} finally {
  await server.close();
  killAllChildren();
}
