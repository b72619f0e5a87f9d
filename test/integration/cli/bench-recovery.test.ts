// `zkts bench raw`: create+delete lanes recover from a link cut mid-run, where a create applied
// on the server may have lost its reply (its scratch node is left; a lane that does not notice
// fails every later create with NODEEXISTS).
import { describe, expect, it } from 'vitest';
import { proxyToSharedServer } from '../../support/integration.js';
import { freshChroot, sleep, startCli } from './helpers.js';

interface BenchJson {
  results: {
    name: string;
    ops: number;
    roundThroughput: number[];
    errors: Record<string, number>;
  }[];
}

describe('zkts bench raw across link cuts', () => {
  it('create+delete keeps completing operations after ~300 ms cuts', async () => {
    const { chroot, root } = await freshChroot();
    const proxy = await proxyToSharedServer();
    const settings = ['--warmup', '100', '--duration', '600', '--rounds', '4', '--depth', '8'];
    const cli = await startCli([
      '--server',
      proxy.connectString + chroot,
      '--session-timeout',
      '10000',
      'bench',
      'raw',
      '--sessions',
      '4',
      '--root',
      '/b',
      ...settings,
      '--json',
    ]);
    // The pipelined create+delete case (the last) has begun once a scratch node of a lane other
    // than 0 shows: 32 lanes, many requests in flight at each cut.
    await expect
      .poll(
        async () => {
          try {
            return (await root.getChildren('/b/raw')).some((name) => name.endsWith('-5'));
          } catch {
            return false;
          }
        },
        { timeout: 30_000, interval: 5 },
      )
      .toBe(true);
    // Several cuts: each catches requests in flight, creates applied whose replies are lost.
    for (let i = 0; i < 3; i++) {
      proxy.freeze('drop');
      await sleep(300);
      proxy.thaw(); // connections that lost bytes are reset; the session reconnects
      await sleep(150);
    }
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as BenchJson;
    const row = report.results.find((r) => r.name === 'create+delete pipelined')!;
    expect(row.errors.NODEEXISTS).toBeUndefined();
    expect(row.errors.CONNECTIONLOSS).toBeGreaterThan(0); // the cuts did hit requests
    // The last round, after every cut, still completes operations.
    expect(row.roundThroughput.at(-1)).toBeGreaterThan(0);
  });
});
