// `zkts bench` names the servers its sessions used and the session events seen during the run,
// taken from the library's session channel: a quiet run says none; a run whose link was cut
// reports the reconnects by server (so figures spoiled by a reconnect say so).
import { describe, expect, it } from 'vitest';
import { sharedServer, TcpProxy } from '../../harness/index.js';
import { buildBenchWorker } from '../cli/bench-helpers.js';
import { freshChroot, runCli, startCli } from '../cli/helpers.js';

interface SessionEventsJson {
  connects: Record<string, number>;
  reconnects: Record<string, number>;
  expiries: Record<string, number>;
  renewals: number;
}

describe('zkts bench: servers and session events', () => {
  it('--processes 2: every session counted by the server it connected to, and no events', async () => {
    await buildBenchWorker();
    const { servers } = await freshChroot();
    const result = await runCli(
      'bench mutex --sessions 4 --processes 2 --duration 300 --warmup 100 --json'.split(' '),
      { servers },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { sessionEvents: SessionEventsJson };
    expect(report.sessionEvents).toEqual({
      connects: { [sharedServer().connectString]: 4 },
      reconnects: {},
      expiries: {},
      renewals: 0,
    });
  });

  it('a link cut during the run: the report names the reconnects and their server', async () => {
    const { chroot } = await freshChroot();
    const [host, port] = sharedServer().connectString.split(':') as [string, string];
    const proxy = await TcpProxy.start(host, Number(port));
    try {
      const cli = await startCli(
        ['bench', 'mutex', '--sessions', '3', '--duration', '2500', '--warmup', '100'],
        { servers: proxy.connectString + chroot },
      );
      // Once the sessions are connected and the run is under way, cut every link (a reset).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      proxy.cut('rst');
      const result = await cli.done;
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        `servers: ${proxy.connectString} 3 (sessions connected first)`,
      );
      expect(result.stdout).toMatch(
        new RegExp(
          `session events during the run: \\d+ reconnects \\(${proxy.connectString} \\d+\\)`,
        ),
      );
    } finally {
      await proxy.close();
    }
  }, 30_000);
});
