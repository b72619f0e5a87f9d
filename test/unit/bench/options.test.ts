// `npm run bench`'s options: how long it takes is said where a user reads it, the port of the
// server it starts is the user's to choose, and a user's run writes outside the tracked results.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseOptions, USAGE } from '../../../bench/options.js';

const ROOT = join(import.meta.dirname, '../../..');
const run = promisify(execFile);

describe('bench options', () => {
  it('--help says how long a run takes and where a run writes', () => {
    expect(USAGE).toMatch(/full run takes about 14 minutes/);
    expect(USAGE).toMatch(/bench\/results\/local/);
    expect(USAGE).toMatch(/--port <n>/);
  });

  it('--port is the client port of the server it starts', () => {
    const options = parseOptions(['--port', '21810']);
    expect(options).not.toBe('help');
    expect(options !== 'help' && options.port).toBe(21810);
    expect(() => parseOptions(['--port', '0'])).toThrow(/--port must be a positive integer/);
    expect(() => parseOptions(['--port', '70000'])).toThrow(/at most 65535/);
    expect(() => parseOptions(['--port', '2181', '--server', 'zk:2181'])).toThrow(
      /with --server .* it starts none/,
    );
  });

  it('--neighbour takes an optional share (bare: the default 0.5), which must be in (0, 1]', () => {
    const share = (argv: string[]) => {
      const options = parseOptions(argv);
      return options === 'help' ? 'help' : options.neighbour;
    };
    expect(share([])).toBeUndefined();
    expect(share(['--neighbour'])).toBe(0.5);
    expect(share(['--neighbour', '--quick'])).toBe(0.5);
    expect(share(['--neighbour', '0.8', '--quick'])).toBe(0.8);
    expect(share(['--neighbour=0.25'])).toBe(0.25);
    expect(() => parseOptions(['--neighbour', '1.5'])).toThrow(/--neighbour must be a share/);
    expect(() => parseOptions(['--neighbour=0'])).toThrow(/--neighbour must be a share/);
  });

  it('the scale scenarios run only when named: never in the default run or --quick', () => {
    const scenarios = (argv: string[]) => {
      const options = parseOptions(argv);
      return options === 'help' ? [] : options.scenarios;
    };
    for (const argv of [[], ['--quick']]) {
      expect(scenarios(argv)).not.toContain('scale');
      expect(scenarios(argv)).not.toContain('idle-sessions');
      expect(scenarios(argv)).toContain('mutex');
    }
    expect(scenarios(['--scenario', 'scale', '--scenario', 'idle-sessions'])).toEqual([
      'scale',
      'idle-sessions',
    ]);
  });

  it('--contenders and --server-jvm are checked', () => {
    const options = parseOptions(['--contenders', '1,16', '--server-jvm', 'test']);
    expect(options !== 'help' && options.contenders).toEqual([1, 16]);
    expect(options !== 'help' && options.serverJvm).toBe('test');
    const defaults = parseOptions([]);
    expect(defaults !== 'help' && defaults.serverJvm).toBe('bench');
    expect(() => parseOptions(['--contenders', '1,x'])).toThrow(/--contenders must be/);
    expect(() => parseOptions(['--server-jvm', 'fast'])).toThrow(/bench or test/);
  });

  it('a default run writes into bench/results/local (ignored), never the tracked reference', async () => {
    const status = async () =>
      (
        await run(
          'git',
          ['status', '--porcelain', '--untracked-files=all', '--', 'bench/results'],
          {
            cwd: ROOT,
          },
        )
      ).stdout;
    const before = await status();
    // The size scenario needs no server: a few seconds of esbuild.
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'bench/main.ts', '--scenario', 'size'],
      {
        cwd: ROOT,
        timeout: 60_000,
      },
    );
    expect(stdout).toMatch(/^zookeeper-ts benchmark: the full run takes about 14 minutes/);
    expect(stdout).toMatch(
      /Wrote bench\/results\/local\/latest\.json, bench\/results\/local\/run-/,
    );
    expect(await status()).toBe(before);
  }, 90_000);
});
