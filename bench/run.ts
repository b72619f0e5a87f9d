// The benchmark proper (bench/main.ts compiles and starts it): starts (or uses) a ZooKeeper, runs
// the scenarios, prints the table, writes {latest.json,run-<time>.json,chart.svg} into
// bench/results/local (or --out), stops the server. Exits non-zero when something crashed, never because a figure is slow.
import { cpus, loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { type Client, connect } from '../src/index.js';
import { uniquePath } from '../test/harness/index.js';
import { type JavaRunner, killJavaChildren, prepareJava } from './baselines/java.js';
import { deleteTree } from './cleanup.js';
import { type Neighbour, startNeighbour } from './neighbour.js';
import { DURATION_NOTE, type Options, parseOptions, USAGE } from './options.js';
import { BENCH_DIR } from './paths.js';
import { Progress } from './progress.js';
import { type RunMeta, writeReport } from './report.js';
import { OFFLINE, SCENARIOS, USES_JAVA } from './scenarios/index.js';
import { type BenchServer, MODEL_BANNER, provideServer } from './server.js';
import type { BenchContext, Results } from './types.js';
import { warmServer } from './warm-server.js';

async function main(): Promise<number> {
  let options: Options | 'help';
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const outDir = options.outDir ?? join(BENCH_DIR, 'results', 'local');
  process.stdout.write(
    `zookeeper-ts benchmark: ${DURATION_NOTE}; results go to ${relative(process.cwd(), outDir) || '.'}\n`,
  );
  const startedAt = new Date().toISOString();
  const loadStart = loadavg()[0]!;
  const progress = new Progress();
  const results: Results = { figures: [], skipped: [], failures: [] };
  const selected = SCENARIOS.filter((s) => options.scenarios.includes(s.name));
  const needsServer = selected.some((s) => !OFFLINE.has(s.name));
  const needsJava = selected.some((s) => USES_JAVA.has(s.name));

  let java: JavaRunner | undefined;
  let javaSkipped: string | undefined;
  if (needsJava) {
    progress.step('compiling the Java baselines');
    const prepared = await prepareJava();
    if ('skipped' in prepared) {
      javaSkipped = prepared.skipped;
      progress.note(`Java baselines skipped: ${javaSkipped}`);
    } else java = prepared;
  }

  let server: BenchServer | undefined;
  let admin: Client | undefined;
  let neighbour: Neighbour | undefined;
  let neighbourStarted = 0;
  let neighbourCores: number | undefined;
  const root = uniquePath('zkts-bench');
  try {
    if (needsServer) {
      progress.step(options.server ? `connecting to ${options.server}` : 'starting ZooKeeper');
      server = await provideServer({
        server: options.server,
        fsync: options.fsync,
        testJvm: options.serverJvm === 'test',
        port: options.port,
        model: options.modelServer,
      });
      if (server.model !== undefined) {
        process.stdout.write(`${MODEL_BANNER}\n`);
        progress.note(`in-process model server at ${server.connectString} (${server.model})`);
      } else
        progress.note(
          `ZooKeeper ${server.version ?? '?'} at ${server.connectString} (${server.origin})`,
        );
      admin = await connect(server.connectString, { sessionTimeout: 30_000 });
      await admin.create(root);
    }
    let caseCounter = 0;
    const ctx: BenchContext = {
      server: server?.connectString ?? '',
      root,
      get admin(): Client {
        if (!admin) throw new Error('this scenario needs a server');
        return admin;
      },
      timing: options.timing,
      quick: options.quick,
      seed: options.seed,
      contenders: options.contenders,
      java,
      javaSkipped,
      progress,
      results,
      serverStats: async () => server?.mntr(),
      serverCpuMs: () => server?.cpuMs(),
      async casePath(slug) {
        const path = `${root}/${String(++caseCounter).padStart(3, '0')}-${slug}`;
        await ctx.admin.create(path);
        return path;
      },
    };
    if (options.neighbour !== undefined) {
      neighbour = startNeighbour(options.neighbour);
      neighbourStarted = performance.now();
      progress.note(
        `neighbour: ${neighbour.processes} busy processes at ${Math.round(options.neighbour * 100)}% of each core`,
      );
    }
    const untimed = new Set(['heap', 'idle-sessions']);
    const timed = selected.some((s) => !untimed.has(s.name) && !OFFLINE.has(s.name));
    if (timed) await warmServer(ctx, options.quick ? 2000 : 6000);
    for (const scenario of selected) await scenario.run(ctx);
    if (neighbour) {
      const cpuMs = neighbour.cpuMs();
      const wallMs = performance.now() - neighbourStarted;
      if (cpuMs !== undefined && wallMs > 0) neighbourCores = cpuMs / wallMs;
      for (const figure of results.figures) figure.loaded = neighbour.share;
    }
  } catch (err) {
    // Crashed outside any one case (server start, connect): report what we have.
    results.failures.push({
      scenario: 'setup',
      case: '-',
      impl: 'zookeeper-ts',
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
    progress.note(`FAILED: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    progress.step('cleaning up');
    await neighbour?.stop();
    if (admin) {
      await deleteTree(admin, root).catch((err: unknown) =>
        progress.note(`could not delete ${root}: ${String(err)}`),
      );
      await admin.close();
    }
    await server?.close();
    progress.done();
  }

  const meta: RunMeta = {
    startedAt,
    finishedAt: new Date().toISOString(),
    command: `npx tsx bench/main.ts ${process.argv.slice(2).join(' ')}`.trim(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpus().length,
    loadAverage: { start: loadStart, end: loadavg()[0]! },
    server: {
      connectString: server?.connectString ?? '-',
      origin: server?.origin ?? 'none',
      fsync: server?.fsync,
      version: server?.version,
      ...(server && server.origin !== 'external' && server.model === undefined
        ? { jvm: options.serverJvm }
        : {}),
      ...(server?.model === undefined ? {} : { model: server.model }),
    },
    java: java?.version,
    timing: options.timing,
    quick: options.quick,
    seed: options.seed,
    scenarios: options.scenarios,
  };
  if (neighbour) {
    meta.neighbour = {
      share: neighbour.share,
      processes: neighbour.processes,
      cores: neighbourCores,
    };
  }
  const report = writeReport(meta, results, outDir);
  process.stdout.write(`${report.text}\n\n`);
  process.stdout.write(
    `Wrote ${report.files.map((file) => relative(process.cwd(), file)).join(', ')}\n`,
  );
  return results.failures.length > 0 ? 1 : 0;
}

// Interrupted: stop the Java baselines; the harness's exit hook stops the ZooKeeper it started.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killJavaChildren();
    process.stderr.write(`\n${signal}: stopping\n`);
    process.exit(130);
  });
}

main().then(
  (code) => {
    process.exitCode = code;
    // A baseline library may keep a timer or socket alive; do not hang on it.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
