import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HARNESS_TMP_ENV, killOrphans, removeOnExit } from './cleanup.js';
import { DEFAULT_SUPER } from './config.js';
import { SHARED_SERVER_ENV, type SharedServerInfo } from './shared.js';
import { detectSource, externalConnectString } from './source.js';
import { startStandalone } from './standalone.js';
import type { ZkServer } from './types.js';

const SETUPS = Symbol.for('zookeeper-ts:test-shared-server');

/**
 * vitest globalSetup: one standalone server for the whole run (or ZOOKEEPER_CONNECT), shared by
 * every test file through the environment the workers inherit. Each tier that uses a server
 * (vitest.config.ts) names this file; the first one in a run starts the server and the others
 * share it, and it is stopped after the last.
 * When no server can be had, the run still starts; `sharedServer()` then throws the reason in
 * every test that asks for it.
 */
export default async function setup(): Promise<() => Promise<void>> {
  // One server per process whichever project asks first: the module may be loaded once per
  // project, so the count lives on the process, not in this module.
  const shared = globalThis as {
    [SETUPS]?: { users: number; started: Promise<() => Promise<void>> };
  };
  const existing = shared[SETUPS];
  if (existing !== undefined) {
    existing.users++;
    const stop = await existing.started;
    return () => release(stop);
  }
  const entry = { users: 1, started: startShared() };
  shared[SETUPS] = entry;
  const stop = await entry.started;
  return () => release(stop);
}

async function release(stop: () => Promise<void>): Promise<void> {
  const entry = (globalThis as { [SETUPS]?: { users: number } })[SETUPS];
  if (entry === undefined || --entry.users > 0) return;
  delete (globalThis as { [SETUPS]?: unknown })[SETUPS];
  await stop();
}

async function startShared(): Promise<() => Promise<void>> {
  const runDir = mkdtempSync(join(tmpdir(), 'zkts-run-'));
  // Workers nest their temp dirs (and so their JVMs' command lines) under runDir: see teardown.
  process.env[HARNESS_TMP_ENV] = runDir;
  removeOnExit(runDir);
  let server: ZkServer | undefined;
  let info: SharedServerInfo;
  const external = externalConnectString();
  if (external !== undefined) {
    info = { connectString: external, managed: false };
  } else {
    try {
      const source = await detectSource();
      // Spare each worker its own Docker probe.
      if (source.kind !== 'external') process.env.ZOOKEEPER_HARNESS ??= source.kind;
      const started = Date.now();
      server = await startStandalone({ superDigest: DEFAULT_SUPER });
      info = { connectString: server.connectString, superAuth: DEFAULT_SUPER, managed: true };
      console.log(
        `[zk harness] shared ${source.kind} ZooKeeper at ${server.connectString} (started in ${Date.now() - started} ms)`,
      );
    } catch (err) {
      info = { error: err instanceof Error ? err.message : String(err) };
      console.warn(
        `[zk harness] no shared ZooKeeper; tests that need one will fail:\n${info.error}`,
      );
    }
  }
  process.env[SHARED_SERVER_ENV] = JSON.stringify(info);

  return async () => {
    await server?.close();
    const orphans = killOrphans(runDir);
    if (orphans.length > 0)
      console.warn(
        `[zk harness] killed ${orphans.length} ZooKeeper JVM(s) left by test workers: ${orphans.join(' ')}`,
      );
    rmSync(runDir, { recursive: true, force: true });
  };
}
