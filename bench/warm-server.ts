// Before the first measured case: load the server for a moment so that its JIT has compiled the
// request path. Otherwise whichever client runs first pays for the server's warm-up.

import { closeAll, closeOurs, openOurs } from './drivers/sessions.js';
import { runWindow } from './drivers/window.js';
import { oursIssue } from './scenarios/raw-issue.js';
import { RoundClock, RoundRecorder } from './stats.js';
import type { BenchContext } from './types.js';

export async function warmServer(ctx: BenchContext, ms: number): Promise<void> {
  ctx.progress.step('warming up the server', ms);
  const base = await ctx.casePath('server-warmup');
  await ctx.admin.create(`${base}/data`, new Uint8Array(32));
  const clients = await openOurs(ctx.server, 4);
  try {
    for (const op of ['getData', 'createDelete'] as const) {
      const clock = new RoundClock({ warmupMs: ms / 2, durationMs: 1, rounds: 0 });
      const recorder = new RoundRecorder(clock);
      await runWindow(clock, recorder, 400, oursIssue(clients, op, base, 400, new Uint8Array(32)));
    }
  } finally {
    await closeAll(clients, closeOurs);
  }
}
