// The tiers (test/tiers/tiers.ts) hold every test file exactly once, the unit tier needs no
// server, and each tier has its npm script.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  filesCalling,
  filesNeedingManagedServer,
  SERVER_CALL,
  testFiles,
} from '../../tiers/managed-only.js';
import { tally } from '../../tiers/tally.js';
import { inTier, TIERS } from '../../tiers/tiers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const files = testFiles(ROOT);

describe('test tiers', () => {
  it('put every test file in exactly one tier', () => {
    const wrong = files
      .map((file) => ({
        file,
        tiers: TIERS.filter((tier) => inTier(tier, file)).map((t) => t.name),
      }))
      .filter(({ tiers }) => tiers.length !== 1);
    expect(wrong, 'add the file to one tier in test/tiers/tiers.ts').toEqual([]);
  });

  it('keep the unit tier away from the harness (no server, no JVM)', () => {
    const unit = TIERS.find((tier) => tier.name === 'unit');
    const withServer = filesCalling(ROOT, SERVER_CALL).filter(
      (file) => unit !== undefined && inTier(unit, file),
    );
    expect(withServer).toEqual([]);
    expect(unit?.sharedServer).toBe(false);
  });

  it('keep vitest hooks out of shared test modules (they would attach to one file of the unit tier)', () => {
    // The unit tier runs with isolate: false: a module is evaluated once per worker, so a hook it
    // registers at import belongs to whichever file imported it first. Clean-up a module owes goes
    // through afterEachTest() (test/support/after-each-test.ts) instead.
    const TOP_LEVEL_HOOK = /^(afterEach|beforeEach|afterAll|beforeAll)\(/m;
    const modules = ['test/unit', 'test/support'].flatMap((dir) =>
      readdirSync(`${ROOT}${dir}`, { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
        .map((file) => `${dir}/${file}`),
    );
    expect(modules.length).toBeGreaterThan(10);
    const withHooks = modules.filter((file) =>
      TOP_LEVEL_HOOK.test(readFileSync(`${ROOT}${file}`, 'utf8')),
    );
    expect(withHooks).toEqual([]);
  });

  it('find the files that start their own servers (left out with ZOOKEEPER_CONNECT)', () => {
    const managed = filesNeedingManagedServer(ROOT);
    expect(managed).toContain('test/chaos/chaos.test.ts');
    expect(managed).toContain('test/integration/client/tls.test.ts');
    expect(managed).not.toContain('test/chaos/api-abuse.test.ts');
  });

  it('give each tier an npm script, and npm test the runner of them all', () => {
    const { scripts } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const tier of TIERS) {
      expect(scripts[`test:${tier.name}`]).toBe(`vitest run --project ${tier.name}`);
    }
    expect(scripts.test).toBe('tsx test/tiers/run.ts');
  });
});

describe("npm test's closing line", () => {
  const vitest = new Set(['unit', 'servers']);
  const step = (name: string, ok: boolean) => ({ name, ok, seconds: 1 });

  it('adds up the vitest counts and counts each other step as one test', () => {
    const outcomes = [
      step('unit', true),
      step('check', true),
      step('servers', false),
      step('package', false),
    ];
    const runs = [
      { passed: 921, failed: 0, skipped: 0 },
      { passed: 699, failed: 9, skipped: 0 },
    ];
    expect(tally(outcomes, runs, vitest)).toBe('tests: 1621 passed, 10 failed');
  });

  it('counts a failed vitest run without a failed test (or without its counts) as a failure', () => {
    expect(tally([step('unit', false)], [{ passed: 5, failed: 0, skipped: 0 }], vitest)).toBe(
      'tests: 5 passed, 1 failed',
    );
    expect(tally([step('unit', false)], [], vitest)).toBe('tests: 0 passed, 1 failed');
  });
});
