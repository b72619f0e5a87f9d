// vitest setupFiles entry: every test fails when a promise rejected unhandled while it ran.
import { afterEach } from 'vitest';
import { UnhandledRejectionGuard } from './unhandled.js';

const guard = new UnhandledRejectionGuard();
guard.install();

afterEach(async () => {
  // Node reports an unhandled rejection after the microtask queue drains: give it one macrotask.
  await new Promise((resolve) => setTimeout(resolve, 0));
  guard.check();
});
