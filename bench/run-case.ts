// Runs one measured case: progress, timing, and turning a crash into a recorded failure (the run
// goes on; main exits non-zero at the end). A slow result is never a failure.
import type { BenchContext, CaseId, Figure } from './types.js';

export type Measured = Omit<Figure, keyof CaseId>;

export async function runCase(
  ctx: BenchContext,
  id: CaseId,
  body: () => Promise<Measured>,
): Promise<Figure | undefined> {
  const { warmupMs, durationMs, rounds } = ctx.timing;
  ctx.progress.step(`${id.scenario} › ${id.case} › ${id.impl}`, warmupMs + rounds * durationMs);
  try {
    const figure: Figure = { ...id, ...(await body()) };
    ctx.results.figures.push(figure);
    return figure;
  } catch (err) {
    const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    ctx.results.failures.push({ ...id, error });
    ctx.progress.note(`FAILED ${id.scenario} › ${id.case} › ${id.impl}: ${error.split('\n')[0]}`);
    return undefined;
  }
}

/** Runs a Java case, or records why it is skipped. */
export async function runJavaCase(
  ctx: BenchContext,
  id: CaseId,
  body: (java: NonNullable<BenchContext['java']>) => Promise<Measured>,
): Promise<Figure | undefined> {
  const java = ctx.java;
  if (java === undefined) {
    ctx.results.skipped.push({ ...id, reason: ctx.javaSkipped ?? 'Java baselines unavailable' });
    return undefined;
  }
  return runCase(ctx, id, () => body(java));
}
