// `zkts bench`: claims a root, starts the parts (here or in worker processes), runs them on one
// shared clock, merges their figures, and always closes every session and removes its nodes.
import { writeFileSync } from 'node:fs';
import type { CommandContext } from '../context.js';
import { ExitCode } from '../errors.js';
import { signalStatus } from '../supervise.js';
import { type BenchConfig, caseCount, caseLength, sessionsOf } from './config.js';
import { mergeParts } from './merge.js';
import { now, type PartResult } from './part.js';
import { localPart, type PartHandle, spawnedPart } from './processes.js';
import { heading, printReport, reportJson } from './report.js';
import { BenchTree } from './root.js';
import { mergeCounts } from './session-events.js';
import { renderSvg } from './svg.js';

export interface BenchRun {
  config: BenchConfig;
  runId: string;
  svgFile: string | undefined;
}

class Interrupted extends Error {}

/** `promise`, or an Interrupted rejection as soon as `signal` aborts. */
function unlessInterrupted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Interrupted());
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export async function runBench(ctx: CommandContext, run: BenchRun): Promise<number> {
  const { config } = run;
  const admin = await ctx.client();
  const tree = new BenchTree(admin);
  const parts: PartHandle[] = [];
  const stopAll = () => {
    for (const part of parts) part.stop();
  };
  ctx.interrupt.addEventListener('abort', stopAll, { once: true });
  let progress: NodeJS.Timeout | undefined;
  try {
    // Not raced with Ctrl-C: a create still in flight during the cleanup would be left behind.
    await tree.claim(config, run.runId);
    await tree.prepare(config);
    if (ctx.interrupt.aborted) throw new Interrupted();
    for (let i = 0; i < config.processes; i++) {
      const sessions = sessionsOf(config, i);
      parts.push(
        config.processes === 1 ? localPart(config, sessions) : spawnedPart(config, sessions),
      );
    }
    await unlessInterrupted(Promise.all(parts.map((part) => part.ready)), ctx.interrupt);
    // Every part starts at the same moment on the machine's clock, with time for the message.
    const start = now() + (config.processes === 1 ? 20 : 200);
    progress = showProgress(config, parts, start);
    const results: PartResult[] = await Promise.all(parts.map((part) => part.run(start)));
    clearInterval(progress);
    clearProgress();
    const interrupted = ctx.interrupt.aborted;
    const from = start + config.warmupMs;
    const figures = mergeParts(config, results, {
      from,
      to: from + config.rounds * config.durationMs,
    });
    const sessionEvents = mergeCounts(results.map((r) => r.sessionEvents));
    const info = { runId: run.runId, config, interrupted, sessionEvents };
    if (ctx.out.json) ctx.out.emit(reportJson(info, figures));
    else printReport(ctx.out, info, figures);
    if (run.svgFile !== undefined && figures.length > 0) {
      writeFileSync(run.svgFile, renderSvg(heading(config), figures));
    }
    if (interrupted) return signalStatus(ctx.interrupt.reason as NodeJS.Signals);
    if (figures.every((figure) => figure.ops === 0)) {
      // Nothing measured is a failure, not a figure of 0 ops/s (every session failing, say).
      ctx.note('no operation completed in the measured rounds: no figures to report');
      return ExitCode.ERROR;
    }
    return 0;
  } catch (error) {
    if (!(error instanceof Interrupted)) throw error;
    ctx.note('interrupted before the run started');
    return signalStatus(ctx.interrupt.reason as NodeJS.Signals);
  } finally {
    clearInterval(progress);
    ctx.interrupt.removeEventListener('abort', stopAll);
    // Sessions first (their ephemeral nodes go with them), then the nodes this run created.
    stopAll();
    await Promise.all(parts.map((part) => part.closed()));
    const left = await tree.remove();
    if (left.length > 0) {
      ctx.note(`left in place (they now hold nodes zkts bench did not create): ${left.join(', ')}`);
    }
  }
}

/** A live line on a terminal (never when stderr is piped): phase and current rate. */
function showProgress(
  config: BenchConfig,
  parts: readonly PartHandle[],
  start: number,
): NodeJS.Timeout | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = { time: now(), done: 0, caseIndex: -1 };
  return setInterval(() => {
    const time = now();
    const elapsed = time - start;
    const caseIndex = Math.min(caseCount(config) - 1, Math.floor(elapsed / caseLength(config)));
    const into = elapsed - caseIndex * caseLength(config);
    const done = parts.reduce((sum, part) => sum + part.done(), 0);
    const current = { time, done, caseIndex };
    const rate = progressRate(last, current);
    last = current;
    const phase =
      into < config.warmupMs
        ? 'warm-up'
        : `round ${Math.min(config.rounds, Math.floor((into - config.warmupMs) / config.durationMs) + 1)}/${config.rounds}`;
    const what =
      config.scenario === 'raw' ? `case ${caseIndex + 1}/${caseCount(config)}` : config.scenario;
    process.stderr.write(
      `\r\x1b[Kzkts bench: ${what}, ${phase}, ${Math.round(rate).toLocaleString('en-US')} ops/s`,
    );
  }, 250);
}

/** One sample of the progress line: when, operations done so far, which case. */
export interface ProgressSample {
  time: number;
  done: number;
  caseIndex: number;
}

/**
 * Operations per second between two samples, never negative: a new case restarts the counters,
 * and the case the clock says may switch before or after the parts' counters do (each process
 * switches on its own), so a count that went down is a restart, counted from zero.
 */
export function progressRate(last: ProgressSample, current: ProgressSample): number {
  const restarted = current.caseIndex !== last.caseIndex || current.done < last.done;
  const delta = restarted ? current.done : current.done - last.done;
  return (Math.max(0, delta) / Math.max(1, current.time - last.time)) * 1000;
}

function clearProgress(): void {
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
}
