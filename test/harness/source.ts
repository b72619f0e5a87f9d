import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { HarnessUnavailableError, HOW_TO_GET_ZOOKEEPER } from './errors.js';
import { findLocalInstall, type LocalInstall } from './install.js';

/**
 * Where servers come from, in this order:
 *  1. `ZOOKEEPER_CONNECT`: an existing ensemble; the harness starts nothing.
 *  2. a Docker engine: the official `zookeeper` image through testcontainers (standalone servers).
 *  3. a local install (`ZOOKEEPER_HOME` or Debian's package), run as plain JVMs.
 * `ZOOKEEPER_HARNESS=local|docker` forces 2 or 3.
 */
export type ServerSource =
  | { kind: 'external'; connectString: string }
  | { kind: 'docker'; image: string; local: LocalInstall | undefined }
  | { kind: 'local'; install: LocalInstall };

export const DEFAULT_IMAGE = 'zookeeper:3.9';

export function externalConnectString(): string | undefined {
  const value = process.env.ZOOKEEPER_CONNECT?.trim();
  return value ? value : undefined;
}

/**
 * Throws at once when the run uses an external ensemble (`ZOOKEEPER_CONNECT`), which the harness
 * cannot start, stop or kill. Call it first in tests that need a server under their control.
 */
export function requireManaged(what = 'this test'): void {
  const external = externalConnectString();
  if (external !== undefined) {
    throw new HarnessUnavailableError(
      `${what} needs a ZooKeeper the harness manages (local install or Docker), ` +
        `but ZOOKEEPER_CONNECT=${external} selects an external ensemble. Unset ZOOKEEPER_CONNECT to run it.`,
    );
  }
}

let detected: Promise<ServerSource> | undefined;

/** Detects the source once per process. Rejects with one clear error when there is none. */
export function detectSource(): Promise<ServerSource> {
  detected ??= detect();
  return detected;
}

async function detect(): Promise<ServerSource> {
  const external = externalConnectString();
  if (external !== undefined) return { kind: 'external', connectString: external };
  const forced = process.env.ZOOKEEPER_HARNESS;
  const image = process.env.ZOOKEEPER_IMAGE || DEFAULT_IMAGE;
  const local = findLocalInstall();
  if (forced === 'local') {
    if (typeof local === 'string')
      throw new HarnessUnavailableError(
        `ZOOKEEPER_HARNESS=local but ${local}.\n${HOW_TO_GET_ZOOKEEPER}`,
      );
    return { kind: 'local', install: local };
  }
  if (forced === 'docker' || (forced === undefined && (await dockerEngineAvailable()))) {
    return { kind: 'docker', image, local: typeof local === 'string' ? undefined : local };
  }
  if (forced !== undefined && forced !== 'docker') {
    throw new HarnessUnavailableError(
      `ZOOKEEPER_HARNESS must be "local" or "docker", not "${forced}"`,
    );
  }
  if (typeof local !== 'string') return { kind: 'local', install: local };
  throw new HarnessUnavailableError(
    `No ZooKeeper server available: ZOOKEEPER_CONNECT is unset, no Docker engine answered, and ${local}.\n${HOW_TO_GET_ZOOKEEPER}`,
  );
}

/**
 * A Docker engine answers within 3 s, or we treat it as absent: `docker info` when the CLI exists,
 * else an HTTP ping on the engine's unix socket. Never hangs.
 */
export async function dockerEngineAvailable(timeoutMs = 3000): Promise<boolean> {
  const viaCli = await new Promise<boolean | undefined>((resolve) => {
    execFile(
      'docker',
      ['info', '--format', '{{.ServerVersion}}'],
      { timeout: timeoutMs },
      (err) => {
        if (!err) resolve(true);
        else resolve((err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : false);
      },
    );
  });
  if (viaCli !== undefined) return viaCli;
  const host = process.env.DOCKER_HOST;
  const socketPath = host?.startsWith('unix://')
    ? host.slice('unix://'.length)
    : host
      ? undefined
      : '/var/run/docker.sock';
  if (!socketPath || !existsSync(socketPath)) return false;
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
