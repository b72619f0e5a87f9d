// Run by unhandled-guard.test.ts: installs the guard on the real process, leaks a rejection, and
// prints what check() says about it.
import { UnhandledRejectionGuard } from './unhandled.js';

const guard = new UnhandledRejectionGuard();
guard.install();
void Promise.reject(new Error('deliberately unhandled'));
setTimeout(() => {
  try {
    guard.check();
    process.stdout.write('not caught\n');
  } catch (error) {
    process.stdout.write(`caught: ${(error as Error).message}\n`);
  }
}, 50);
