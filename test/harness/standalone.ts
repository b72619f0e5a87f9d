import { rmSync } from 'node:fs';
import { freshDir } from './cleanup.js';
import { startDockerStandalone } from './docker.js';
import type { LocalInstall } from './install.js';
import { BIND_RETRIES, tlsFor } from './local-setup.js';
import { managedSource } from './managed.js';
import { DEFAULT_START_TIMEOUT_MS, LocalNode } from './node.js';
import { freePorts } from './ports.js';
import type { ServerOptions, ZkServer } from './types.js';

/**
 * Starts one ZooKeeper server on fresh 127.0.0.1 ports with a fresh data directory and waits until it
 * serves. With `reconfigEnabled` it runs as a one-member quorum (`standaloneEnabled=false`), so a
 * test can grow it by reconfig; `mode()` then reports `leader`.
 */
export async function startStandalone(opts: ServerOptions = {}): Promise<ZkServer> {
  const source = await managedSource('startStandalone()', needsLocal(opts));
  if (source.kind === 'docker') return startDockerStandalone(source.image, opts);
  return startLocalStandalone(source.install, opts);
}

/** Options the Docker backend does not implement; with them the harness needs a local install. */
function needsLocal(opts: ServerOptions): string | undefined {
  if (opts.tls) return 'TLS';
  if (opts.reconfigEnabled) return 'reconfig';
  if (opts.readOnlyMode) return 'read-only mode';
  if (opts.sasl) return 'SASL';
  return undefined;
}

async function startLocalStandalone(install: LocalInstall, opts: ServerOptions): Promise<ZkServer> {
  const tls = await tlsFor(install, opts);
  const timeoutMs = opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  for (let attempt = 1; ; attempt++) {
    const [client, tlsPort, quorum, election] = await freePorts(opts.reconfigEnabled ? 4 : 2);
    const ports = {
      client: opts.clientPort ?? client!,
      ...(tls ? { tls: tlsPort! } : {}),
      ...(opts.reconfigEnabled ? { quorum: quorum!, election: election! } : {}),
    };
    const node = new LocalNode({
      dir: freshDir('standalone'),
      install,
      opts,
      ports,
      ...(opts.reconfigEnabled ? { quorum: { myid: 1, members: [{ id: 1, ports }] } } : {}),
      ...(tls ? { tls } : {}),
      ready: async (n) => {
        await n.waitForMode(['standalone', 'leader'], timeoutMs);
        await n.waitAlive(timeoutMs);
      },
    });
    try {
      await node.start();
      return node;
    } catch (err) {
      const retry = attempt < BIND_RETRIES && node.failedToBind();
      await node.kill();
      // A port the caller chose stays chosen: a clash is reported, not moved to another port.
      if (opts.clientPort !== undefined && retry) {
        rmSync(node.dir, { recursive: true, force: true });
        throw new Error(`ZooKeeper could not listen on port ${opts.clientPort}: it is taken`, {
          cause: err,
        });
      }
      if (!retry) {
        // Keep the files of a server that failed for a reason other than a port clash: the log explains it.
        throw err;
      }
      rmSync(node.dir, { recursive: true, force: true });
    }
  }
}
