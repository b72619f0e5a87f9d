// The contract of docs/contract.md, checked on every exported class of every entry point: each
// entry of package.json's `exports` is imported from src, every class it exports must be in the
// catalog (test/unit/api/contract/catalog.ts) with its kind, and the checker tries it against the
// rules of that kind on the in-process model server (memory transport: no JVM, no sockets).
//
// PENDING lists the classes still being converted and the rules each still breaks: a class must
// break exactly the rules listed for it, so the list can only shrink (a rule it starts to keep
// fails the test until its entry goes). The drift tests at the end prove that the checker catches
// what it is for, on deliberately broken subclasses of real recipes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unsubscribe } from '../../../src/client/listeners.js';
import { LeaderObserver, type LeaderObserverEvents } from '../../../src/locks/index.js';
import { OperationTimeoutError, TimeoutError } from '../../../src/protocol/errors.js';
import { DistributedBarrier, type WaitOptions } from '../../../src/recipes/index.js';
import type { Findings } from './contract/bench.js';
import { CATALOG } from './contract/catalog.js';
import { checkRecipe } from './contract/checker.js';
import { checkClient, checkError, checkHandle, checkValue } from './contract/checker-others.js';
import { type Env, startEnv } from './contract/env.js';
import type { ClassSpec, EntryName, LongLived, SingleOperation } from './contract/kinds.js';

/**
 * The classes still being converted to the contract, and for each the rules it still breaks
 * (rule -> what is wrong, and whose part it is). Remove an entry when its class keeps the rule.
 */
const PENDING: Record<string, Record<string, string>> = {};

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** package.json's entry points: the name a user imports, and its source module. */
function entryPoints(): { entry: EntryName; source: string }[] {
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
    name: string;
    exports: Record<string, string | { default: string }>;
  };
  return Object.entries(pkg.exports)
    .filter(([key]) => key !== './package.json')
    .map(([key, target]) => {
      const built = typeof target === 'string' ? target : target.default;
      const entry = `${pkg.name}${key.slice(1)}` as EntryName;
      return { entry, source: built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts') };
    });
}

interface Exported {
  readonly name: string;
  readonly entry: EntryName;
  readonly cls: unknown;
}

function isClass(value: unknown): boolean {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/** Every class exported by every entry point (a class exported by two entries, twice). */
async function exportedClasses(): Promise<Exported[]> {
  const found: Exported[] = [];
  for (const { entry, source } of entryPoints()) {
    const module = (await import(`${ROOT}${source}`)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (isClass(value)) found.push({ name, entry, cls: value });
    }
  }
  return found;
}

/** The exported classes the catalog does not know. */
function unclassified(found: readonly Exported[]): string[] {
  return found.filter((c) => CATALOG[c.name] === undefined).map((c) => `${c.entry}: ${c.name}`);
}

/** What a class's findings say against its PENDING entry: rules newly broken, rules kept now. */
function verdict(name: string, findings: Findings, pending: Record<string, string> = {}) {
  return {
    broken: [...findings]
      .filter(([rule]) => !(rule in pending))
      .map(([r, seen]) => `${r}: ${seen}`),
    keptNow: Object.keys(pending)
      .filter((rule) => !findings.has(rule))
      .map((rule) => `${rule}: remove it from PENDING.${name}`),
  };
}

/** The rules `spec`'s class breaks: where it ships (`entry`), and the rules of its kind. */
async function check(env: Env, name: string, spec: ClassSpec): Promise<Findings> {
  const from = classes.filter((c) => c.name === name);
  const exported = from.find((c) => c.entry === spec.entry) ?? from[0]!;
  const findings = await checkKind(env, exported, spec);
  if (from.length !== 1 || exported.entry !== spec.entry) {
    const entries = from.map((c) => c.entry).join(' and ');
    findings.set('entry', `exported from ${entries}; the contract puts it in ${spec.entry} only`);
  }
  return findings;
}

async function checkKind(env: Env, exported: Exported, spec: ClassSpec): Promise<Findings> {
  switch (spec.kind) {
    case 'long-lived':
    case 'single-operation':
      return checkRecipe(env, exported.name, spec, exported.cls);
    case 'error':
      return checkError(exported.name, spec, exported.cls);
    case 'client':
      return checkClient(env, spec);
    case 'value':
      return checkValue(spec, exported.cls);
    case 'handle':
      return checkHandle(env, exported.name, spec, exported.cls);
  }
}

let env: Env;
let classes: Exported[];
beforeAll(async () => {
  env = await startEnv();
  classes = await exportedClasses();
});
afterAll(async () => {
  await env?.close();
});

describe('every exported class is known to the contract', () => {
  it('finds the entry points of package.json and classes in them', () => {
    expect(entryPoints().map((e) => e.entry)).toEqual(
      expect.arrayContaining(['zookeeper-ts', 'zookeeper-ts/locks', 'zookeeper-ts/recipes']),
    );
    expect(classes.length).toBeGreaterThan(20);
  });

  it('has a kind for every exported class', () => {
    expect(unclassified(classes), 'classify these in test/unit/api/contract/catalog*.ts').toEqual(
      [],
    );
  });

  it('has no catalog entry, and no pending entry, for a class nobody exports', () => {
    const names = new Set(classes.map((c) => c.name));
    expect(Object.keys(CATALOG).filter((name) => !names.has(name))).toEqual([]);
    expect(Object.keys(PENDING).filter((name) => !names.has(name))).toEqual([]);
  });
});

describe('every exported class keeps the contract of its kind', () => {
  const names = Object.keys(CATALOG).sort();
  it.each(names)('%s', async (name) => {
    // A class nobody exports is reported by the test above.
    if (!classes.some((c) => c.name === name)) return;
    const findings = await check(env, name, CATALOG[name]!);
    expect(verdict(name, findings, PENDING[name]), `${name} (${CATALOG[name]!.kind})`).toEqual({
      broken: [],
      keptNow: [],
    });
  });
});

describe('the checker catches planted drift', () => {
  /** The rules `drifted` breaks that its real class keeps. */
  async function drift(name: string, drifted: unknown): Promise<Findings> {
    const spec = CATALOG[name] as LongLived | SingleOperation;
    const real = await checkRecipe(env, name, spec, classes.find((c) => c.name === name)!.cls);
    const found = await checkRecipe(env, name, spec, drifted);
    for (const rule of real.keys()) found.delete(rule);
    return found;
  }

  it('a wait whose timeout resolves false, or rejects with OPERATIONTIMEOUT', async () => {
    class ResolvesFalse extends DistributedBarrier {
      override async wait(options?: WaitOptions): Promise<void> {
        try {
          await super.wait(options);
        } catch (error) {
          if (error instanceof TimeoutError) return false as never;
          throw error;
        }
      }
    }
    class ServerTimeout extends DistributedBarrier {
      override async wait(options?: WaitOptions): Promise<void> {
        try {
          await super.wait(options);
        } catch (error) {
          if (error instanceof TimeoutError) throw new OperationTimeoutError('too slow');
          throw error;
        }
      }
    }
    const resolved = await drift('DistributedBarrier', ResolvesFalse);
    expect([...resolved.keys()]).toEqual(['timeout:wait']);
    expect(resolved.get('timeout:wait')).toMatch(/resolved false, not a TimeoutError/);
    const rejected = await drift('DistributedBarrier', ServerTimeout);
    expect([...rejected.keys()]).toEqual(['timeout:wait']);
    expect(rejected.get('timeout:wait')).toMatch(/rejected OperationTimeoutError OPERATIONTIMEOUT/);
  });

  it('a close() that is not idempotent', async () => {
    class ClosesOnce extends LeaderObserver {
      private closedOnce = false;
      override close(): Promise<void> {
        if (this.closedOnce) return Promise.reject(new Error('already closed'));
        this.closedOnce = true;
        return super.close();
      }
    }
    class NewPromiseEachTime extends LeaderObserver {
      override close(): Promise<void> {
        return super.close().then(() => {});
      }
    }
    for (const drifted of [ClosesOnce, NewPromiseEachTime]) {
      const found = await drift('LeaderObserver', drifted);
      expect([...found.keys()], drifted.name).toEqual(['close']);
      expect(found.get('close')).toMatch(/a second close\(\) returned another promise/);
    }
  });

  it('a start() that returns nothing', async () => {
    class VoidStart extends LeaderObserver {
      override start(): Promise<void> {
        super.start().catch(() => {});
        return undefined as never;
      }
    }
    const found = await drift('LeaderObserver', VoidStart);
    expect(found.get('start')).toMatch(/start\(\) returned undefined, not a promise/);
    // Every rule start() is part of (less those the real class still breaks) and no other.
    const rules = [
      'abort:start',
      'after-close',
      'await-using',
      'bad-timeout:start',
      'closed:start',
    ];
    expect([...found.keys()]).toEqual(expect.arrayContaining(['start', 'timeout:start']));
    expect(
      [...found.keys()].filter((rule) => !['start', 'timeout:start', ...rules].includes(rule)),
    ).toEqual([]);
  });

  it('a listener error that never reaches the error listeners', async () => {
    class Swallows extends LeaderObserver {
      override on<K extends keyof LeaderObserverEvents & string>(
        event: K,
        listener: LeaderObserverEvents[K],
      ): Unsubscribe {
        const quiet = (...args: unknown[]) => {
          try {
            (listener as (...a: unknown[]) => void)(...args);
          } catch {
            // the drift: dropped
          }
        };
        return super.on(event as 'change', quiet);
      }
    }
    const found = await drift('LeaderObserver', Swallows);
    expect([...found.keys()]).toEqual(['listener-error']);
  });

  it('an exported class the catalog does not know', () => {
    // A name no recipe has (ServiceCache was the plant until it shipped).
    class PlantedRecipe {}
    const planted = [
      ...classes,
      { name: 'PlantedRecipe', entry: 'zookeeper-ts/recipes' as const, cls: PlantedRecipe },
    ];
    expect(unclassified(planted)).toEqual([
      ...unclassified(classes),
      'zookeeper-ts/recipes: PlantedRecipe',
    ]);
  });

  it('a pending class that starts keeping a rule, and a rule newly broken', () => {
    const pending = { construct: 'options object' };
    expect(verdict('X', new Map(), pending)).toEqual({
      broken: [],
      keptNow: ['construct: remove it from PENDING.X'],
    });
    expect(verdict('X', new Map([['close', 'twice']]), pending).broken).toEqual(['close: twice']);
  });
});
