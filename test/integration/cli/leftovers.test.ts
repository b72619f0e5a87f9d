// What the command leaves running in its process group when it exits: by default zkts keeps the
// lock (or leadership) until that ends, as flock(1)'s inherited descriptor does; with
// `--leftovers stop` it stops it (SIGTERM, SIGKILL after --grace) before releasing. Either way,
// nothing the command started runs without the lock.
import * as fs from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runningTarget } from '../../../src/cli/process-group.js';
import { freshChroot, startCli } from './helpers.js';

/** `sh -c` that starts `sleep 60` in the background, says its pid on stderr, and exits `status`. */
function leaveBehind(status = 0): string[] {
  return ['sh', '-c', `sleep 60 & echo "leftover $!" >&2; exit ${status}`];
}

/** The pid the command printed; killed after the test whatever happens. */
async function leftoverPid(cli: Awaited<ReturnType<typeof startCli>>): Promise<number> {
  await cli.waitForStderr(/leftover \d+/);
  const pid = Number(/leftover (\d+)/.exec(cli.stderr)![1]);
  onTestFinished(() => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  });
  return pid;
}

describe('the command’s leftovers', () => {
  for (const verb of ['lock', 'elect'] as const) {
    it(`zkts ${verb}: keeps the ${verb === 'lock' ? 'lock' : 'leadership'} while a background process the command started runs, releases it when that ends, and exits with the command’s status`, async () => {
      const { servers, root } = await freshChroot();
      const cli = await startCli([verb, '/w', '--', ...leaveBehind(5)], { servers });
      const pid = await leftoverPid(cli);
      await cli.waitForStderr(
        /the command exited; keeping (the lock|leadership) until what it left/,
      );
      // The command has exited; its node is still there and zkts still runs.
      expect((await root.getChildren('/w')).length).toBe(1);
      expect(cli.child.exitCode).toBeNull();
      const released = new Promise<void>((resolve) => {
        void root.getChildren('/w', { watch: () => resolve() });
      });
      process.kill(pid, 'SIGTERM');
      const result = await cli.done;
      expect(result.code).toBe(5);
      await released;
      expect(await root.getChildren('/w')).toEqual([]);
    });
  }

  it('--leftovers stop: what the command left is stopped before the lock is released; the command’s status', async () => {
    const { servers, root } = await freshChroot();
    const cli = await startCli(['lock', '/w', '--leftovers', 'stop', '--', ...leaveBehind(4)], {
      servers,
    });
    const pid = await leftoverPid(cli);
    const result = await cli.done;
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/the command exited; stopping what it left in its process group/);
    expect(runningTarget(pid, fs)).toBe(false);
    expect(await root.getChildren('/w')).toEqual([]);
  });

  it('the lock lost while only the leftovers run: they are stopped and zkts exits 75', async () => {
    const { servers, root } = await freshChroot();
    const cli = await startCli(['lock', '/w', '--grace', '2000', '--', ...leaveBehind(0)], {
      servers,
    });
    const pid = await leftoverPid(cli);
    await cli.waitForStderr(/keeping the lock until what it left/);
    const [name] = await root.getChildren('/w');
    await root.delete(`/w/${name}`);
    const result = await cli.done;
    expect(result.code).toBe(75);
    expect(result.stderr).toMatch(/lost: the lock node was deleted by someone else/);
    expect(runningTarget(pid, fs)).toBe(false);
  });

  it('a bad --leftovers is a usage error', async () => {
    const { servers } = await freshChroot();
    const cli = await startCli(['lock', '/w', '--leftovers', 'keep', '--', 'true'], { servers });
    const result = await cli.done;
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--leftovers must be wait or stop, got "keep"/);
  });
});
