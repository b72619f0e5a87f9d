// One progress line on stderr while the benchmark runs (rewritten in place on a terminal).

export class Progress {
  private readonly started = performance.now();
  private label = '';
  private caseStarted = 0;
  private expectedMs = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly tty = process.stderr.isTTY === true;

  /** A new step; `expectedMs` is how long it should take (0 when unknown). */
  step(label: string, expectedMs = 0): void {
    this.label = label;
    this.caseStarted = performance.now();
    this.expectedMs = expectedMs;
    if (this.tty) {
      this.timer ??= setInterval(() => this.draw(), 500);
      this.timer.unref();
      this.draw();
    } else {
      process.stderr.write(`${this.prefix()} ${label}\n`);
    }
  }

  /** A line that stays (notes, skips, failures). */
  note(text: string): void {
    if (this.tty) process.stderr.write('\r\x1b[2K');
    process.stderr.write(`${this.prefix()} ${text}\n`);
    if (this.tty && this.timer) this.draw();
  }

  done(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.tty) process.stderr.write('\r\x1b[2K');
  }

  private prefix(): string {
    const total = Math.round((performance.now() - this.started) / 1000);
    return `[${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}]`;
  }

  private draw(): void {
    const elapsed = (performance.now() - this.caseStarted) / 1000;
    const of = this.expectedMs > 0 ? `/${(this.expectedMs / 1000).toFixed(0)}` : '';
    const line = `${this.prefix()} ${this.label}  ${elapsed.toFixed(0)}${of} s`;
    process.stderr.write(`\r\x1b[2K${line.slice(0, (process.stderr.columns ?? 100) - 1)}`);
  }
}
