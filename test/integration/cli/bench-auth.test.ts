// `zkts bench` against a server that requires SASL: the credentials reach every measuring
// session, in worker processes too, and the run measures real operations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandalone, type ZkServer } from '../../harness/index.js';
import { buildBenchWorker } from './bench-helpers.js';
import { freshChroot, runCli } from './helpers.js';

interface BenchJson {
  results: { name: string; ops: number; errors: Record<string, number> }[];
}

describe('zkts bench --sasl', () => {
  let server: ZkServer;

  beforeAll(async () => {
    server = await startStandalone({ sasl: { users: { alice: 'secret' }, enforce: true } });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it.each([1, 2])('every measuring session authenticates (--processes %i)', async (processes) => {
    if (processes > 1) await buildBenchWorker();
    const result = await runCli(
      [
        '--sasl',
        'alice:secret',
        'bench',
        'mutex',
        '--sessions',
        '2',
        '--processes',
        String(processes),
        '--duration',
        '300',
        '--warmup',
        '100',
        '--json',
      ],
      { servers: server.connectString },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [row] = (JSON.parse(result.stdout) as BenchJson).results;
    expect(row!.ops).toBeGreaterThan(0);
    expect(row!.errors).toEqual({});
  });
});

describe('zkts bench with nothing measured', () => {
  it('exits non-zero with a message when no operation completed', async () => {
    const { servers } = await freshChroot();
    // One session takes the lock in the warm-up and holds it past the measured round.
    const args = ['bench', 'mutex', '--sessions', '1', '--hold', '2000'];
    const result = await runCli([...args, '--warmup', '200', '--duration', '300'], { servers });
    expect(result.stderr).toMatch(/no operation completed/);
    expect(result.code).toBe(1);
  });
});
