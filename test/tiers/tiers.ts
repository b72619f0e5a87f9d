// The test tiers: which test files answer which question, and the vitest project of each. One
// list, read by vitest.config.ts (its projects), test/tiers/run.ts (`npm test`) and the check
// that every test file belongs to exactly one tier (test/unit/repo/tiers.test.ts).

/** A tier's files: folders (ending in `/`, every `*.test.ts` under them) and single files. */
export interface Tier {
  /** The vitest project name (`npx vitest run --project NAME`). */
  readonly name: string;
  /** The question it answers, for `npm test`'s output and docs/testing.md. */
  readonly question: string;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  /** Whether its files use the shared ZooKeeper the global setup starts. */
  readonly sharedServer: boolean;
  /**
   * Whether each file gets a fresh process with its own module graph (vitest's `isolate`). The
   * unit tier shares one process per worker: loading the library again for each of its 120-odd
   * short files cost as much as running them. Its files must leave no global state behind
   * (test/guard/setup.ts undoes fake timers, spies and stubbed globals after each file).
   */
  readonly isolate: boolean;
}

export const TIERS = [
  {
    name: 'unit',
    question: 'does the code do what it says, with no server, no JVM and no network?',
    include: [
      'test/unit/',
      'test/chaos/checker.test.ts',
      'test/chaos/expiries.test.ts',
      // The testing guide's vitest example (docs/testing-your-code.md), on the in-process server.
      'examples/testing/vitest.test.ts',
    ],
    exclude: [],
    sharedServer: false,
    isolate: false,
  },
  {
    name: 'integration',
    question: 'does the client, every recipe and zkts behave against a real ZooKeeper?',
    include: [
      'test/integration/',
      'test/chaos/api-abuse.test.ts',
      'test/chaos/api-abuse-locks.test.ts',
      'test/chaos/regressions/',
    ],
    exclude: ['test/integration/harness.test.ts', 'test/integration/harness-proxy.test.ts'],
    sharedServer: true,
    isolate: true,
  },
  {
    name: 'interop',
    question:
      'do our locks, elections and recipes work beside Curator and kazoo on the same paths?',
    include: ['test/interop/'],
    exclude: [],
    sharedServer: true,
    isolate: true,
  },
  {
    name: 'soak',
    question:
      'does it stay safe under faults and hostile input: chaos seeds on a 3-node ensemble, simulator seeds and planted bugs, protocol and session fuzz, the harness self-test?',
    include: [
      'test/chaos/chaos.test.ts',
      'test/chaos/session-fuzz.test.ts',
      'test/chaos/protocol-fuzz.test.ts',
      'test/sim/',
      'test/integration/harness.test.ts',
      'test/integration/harness-proxy.test.ts',
    ],
    exclude: [],
    sharedServer: true,
    isolate: true,
  },
] as const satisfies readonly Tier[];

/** The tier names, in `npm test`'s order. */
export type TierName = (typeof TIERS)[number]['name'];

/** A tier's include or exclude entries as vitest globs. */
export function globs(entries: readonly string[]): string[] {
  return entries.map((entry) => (entry.endsWith('/') ? `${entry}**/*.test.ts` : entry));
}

/** Whether `file` (relative to the repository, `/`-separated) is in `tier`. */
export function inTier(tier: Tier, file: string): boolean {
  const matches = (entry: string) =>
    entry.endsWith('/') ? file.startsWith(entry) : file === entry;
  return tier.include.some(matches) && !tier.exclude.some(matches);
}
