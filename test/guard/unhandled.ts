// Catches promises that reject with nobody listening. Vitest itself only reports such a rejection
// as a run-level "Unhandled Rejection" error next to a test that passed (and the summary reporter
// counts that test as passed); with this guard the test during which it happened fails too.
import type { EventEmitter } from 'node:events';

/** Records unhandled rejections from `process` (or any emitter of that event) until checked. */
export class UnhandledRejectionGuard {
  private readonly seen: unknown[] = [];
  /** Whether install() is listening now. */
  installed = false;

  /** The listener; exposed so a test can feed it directly. */
  readonly record = (reason: unknown): void => {
    this.seen.push(reason);
  };

  /** Starts listening on `target`; returns the function that stops it. */
  install(target: Pick<EventEmitter, 'on' | 'off'> = process): () => void {
    target.on('unhandledRejection', this.record);
    this.installed = true;
    return () => {
      target.off('unhandledRejection', this.record);
      this.installed = false;
    };
  }

  /** Throws (and forgets them) when rejections were recorded since the last check. */
  check(): void {
    if (this.seen.length === 0) return;
    const reasons = this.seen.splice(0);
    const text = reasons
      .map((r) => (r instanceof Error ? `${r.name}: ${r.message}` : String(r)))
      .join('; ');
    throw new Error(`${reasons.length} promise(s) rejected unhandled: ${text}`, {
      cause: reasons[0],
    });
  }
}
