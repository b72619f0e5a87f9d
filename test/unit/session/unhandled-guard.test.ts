// The suite's unhandled-rejection guard (test/guard, a vitest setupFiles entry) must really catch
// one: proven on a real process in a child, and on a stand-in emitter.
import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UnhandledRejectionGuard } from '../../guard/unhandled.js';

describe('unhandled-rejection guard', () => {
  it('catches a real unhandled rejection in a Node process and names it', async () => {
    const child = fileURLToPath(new URL('../../guard/leak.child.ts', import.meta.url));
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', child], { timeout: 20_000 }, (err, out) =>
        err ? reject(err) : resolve(out),
      ),
    );
    expect(stdout.trim()).toBe(
      'caught: 1 promise(s) rejected unhandled: Error: deliberately unhandled',
    );
  });

  it('check() throws once per batch of recorded rejections, then is clean again', () => {
    const guard = new UnhandledRejectionGuard();
    const emitter = new EventEmitter();
    const uninstall = guard.install(emitter);
    guard.check();
    emitter.emit('unhandledRejection', new Error('first'), Promise.resolve());
    emitter.emit('unhandledRejection', 'second', Promise.resolve());
    expect(() => guard.check()).toThrow('2 promise(s) rejected unhandled: Error: first; second');
    expect(() => guard.check()).not.toThrow();
    uninstall();
    emitter.emit('unhandledRejection', new Error('after uninstall'), Promise.resolve());
    expect(() => guard.check()).not.toThrow();
  });
});
