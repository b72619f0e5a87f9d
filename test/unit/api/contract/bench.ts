// One class's subjects for the checker: each built fresh, on a fresh path and its own controlled
// client, and cleaned up after the class's checks (what got in its way first, then the subject).
import type { RecipeClient } from '../../../../src/client/recipe-client.js';
import type { Env } from './env.js';
import type { Ctx, Loose } from './kinds.js';
import { outcomeOf } from './outcome.js';

/** The rules a class breaks: rule name -> what was seen. */
export type Findings = Map<string, string>;

/** Builds subjects of one class and cleans up after each. */
export class Bench {
  private readonly cleanups: (() => Promise<unknown> | unknown)[] = [];

  constructor(
    readonly env: Env,
    readonly name: string,
    private readonly build: (client: RecipeClient, path: string) => object,
  ) {}

  /** A fresh subject on a fresh path, on its own controlled client. */
  subject(): Ctx {
    const control = this.env.subjectClient();
    const path = this.env.path(this.name);
    const subject = this.build(control.client, path) as Loose;
    const undo: (() => Promise<unknown> | unknown)[] = [];
    this.cleanups.push(async () => {
      for (const step of undo.reverse()) await outcomeOf(step);
      control.release();
      if (typeof subject.close === 'function') await outcomeOf(() => call(subject, 'close'));
    });
    return { env: this.env, path, subject, control, defer: (step) => undo.push(step) };
  }

  async cleanUp(): Promise<void> {
    for (const step of this.cleanups.splice(0).reverse()) await outcomeOf(step);
  }
}

/** Calls `subject[method](...args)`; a missing method throws a TypeError that names it. */
export function call(subject: Loose, method: string, ...args: unknown[]): unknown {
  const fn = subject[method];
  if (typeof fn !== 'function') throw new TypeError(`it has no ${method}() method`);
  return (fn as (...a: unknown[]) => unknown).apply(subject, args);
}
