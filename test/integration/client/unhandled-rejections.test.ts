// No promise of the library may reject unhandled: in plain Node (default flags) that ends the
// user's process. The failing connects run in a child process so its exit status can be checked.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort, sharedServer } from '../../harness/index.js';
import { childOutput } from '../../support/integration.js';

const child = fileURLToPath(new URL('./connect-failures.child.ts', import.meta.url));

/** Runs the child script with `args` (tsx, default Node flags), killed after 25 s. */
const run = (args: string[]) =>
  childOutput(
    spawn(process.execPath, ['--import', 'tsx', child, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
    25_000,
  );

describe('failed connects leave no unhandled rejection', () => {
  it('a child Node process with default flags survives failed connects with auth, an expired resume and a refusing transport', async () => {
    const refused = await freePort();
    const result = await run([String(refused), sharedServer().connectString]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(['CONNECTIONLOSS', 'SESSIONEXPIRED', 'BADARGUMENTS']);
  });
});
