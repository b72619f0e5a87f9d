// No promise of the library may reject unhandled: in plain Node (default flags) that ends the
// user's process. The failing connects run in a child process so its exit status can be checked.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort, sharedServer } from '../../harness/index.js';

const child = fileURLToPath(new URL('./connect-failures.child.ts', import.meta.url));

function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d));
    proc.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 25_000);
    proc.on('error', reject);
    proc.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('failed connects leave no unhandled rejection', () => {
  it('a child Node process with default flags survives failed connects with auth, an expired resume and a refusing transport', async () => {
    const refused = await freePort();
    const result = await run([String(refused), sharedServer().connectString]);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(['CONNECTIONLOSS', 'SESSIONEXPIRED', 'BADARGUMENTS']);
  });
});
