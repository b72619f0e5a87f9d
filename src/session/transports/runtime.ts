// Which JavaScript runtime this is, from globals every bundler leaves alone.

/** The runtimes {@link detectRuntime} tells apart; `unknown` for anything else (a browser, say). */
export type RuntimeName = 'workerd' | 'bun' | 'deno' | 'node' | 'unknown';

/** Which runtime this is, from its globals (the default transport picks its adapter by it). */
export function detectRuntime(): RuntimeName {
  const g = globalThis as {
    navigator?: { userAgent?: unknown };
    Bun?: unknown;
    Deno?: unknown;
    process?: { versions?: { node?: unknown } };
  };
  // First: workerd with nodejs_compat also has `process`.
  if (g.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
  // Bun and Deno define `process.versions.node` too.
  if (g.Bun !== undefined) return 'bun';
  if (g.Deno !== undefined) return 'deno';
  if (typeof g.process?.versions?.node === 'string') return 'node';
  return 'unknown';
}
