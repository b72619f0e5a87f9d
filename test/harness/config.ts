import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOOPBACK } from './ports.js';
import { type TlsMaterial, tlsSystemProperties } from './tls.js';
import type { ServerOptions } from './types.js';

export const DEFAULT_TICK_MS = 200;
/** Sessions may ask for up to this; the ZooKeeper default (20 ticks = 4 s here) is too short for some tests. */
export const MAX_SESSION_TIMEOUT_MS = 120_000;
/** The super user a reconfig-enabled server gets when the caller names none. */
export const DEFAULT_SUPER = 'super:zkts-test';

/** Ports of one server. `quorum`/`election` only in quorum mode. */
export interface NodePorts {
  client: number;
  tls?: number;
  quorum?: number;
  election?: number;
}

/** One server's view of the quorum it belongs to (ensembles, and standalone with reconfig). */
export interface QuorumSpec {
  myid: number;
  members: { id: number; ports: NodePorts }[];
}

/** `user:base64(sha1(user:password))`, the form `DigestAuthenticationProvider.superDigest` wants. */
export function superDigestOf(userPassword: string): string {
  const user = userPassword.slice(0, userPassword.indexOf(':'));
  if (!user) throw new Error(`superDigest must be "user:password", got "${userPassword}"`);
  return `${user}:${createHash('sha1').update(userPassword).digest('base64')}`;
}

export function superAuthOf(opts: ServerOptions): string | undefined {
  return opts.superDigest ?? (opts.reconfigEnabled ? DEFAULT_SUPER : undefined);
}

function serverLine(member: QuorumSpec['members'][number]): string {
  const { quorum, election, client } = member.ports;
  return `${LOOPBACK}:${quorum}:${election}:participant;${LOOPBACK}:${client}`;
}

/**
 * Writes zoo.cfg (and the dynamic config and myid in quorum mode) into `dir`; returns the config path.
 * Data lives in `dir/data`, so a restart reuses it.
 */
export function writeServerConfig(
  dir: string,
  opts: ServerOptions,
  ports: NodePorts,
  quorum?: QuorumSpec,
): string {
  const tick = opts.tickTime ?? DEFAULT_TICK_MS;
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const cfg = new Map<string, string>([
    ['tickTime', String(tick)],
    ['dataDir', dataDir],
    // Every test client comes from 127.0.0.1; the default cap of 60 per address is too low.
    ['maxClientCnxns', '0'],
    ['minSessionTimeout', String(2 * tick)],
    ['maxSessionTimeout', String(MAX_SESSION_TIMEOUT_MS)],
    ['4lw.commands.whitelist', '*'],
    ['admin.enableServer', 'false'],
  ]);
  if (ports.tls !== undefined) {
    cfg.set('secureClientPort', String(ports.tls));
    cfg.set('secureClientPortAddress', LOOPBACK);
  }
  if (quorum) {
    writeFileSync(join(dataDir, 'myid'), `${quorum.myid}\n`);
    // In ticks: 10 s for a follower's first sync, 3 s of silence before a peer counts as gone.
    cfg.set('initLimit', String(Math.ceil(10_000 / tick)));
    cfg.set('syncLimit', String(Math.ceil(3_000 / tick)));
    cfg.set('standaloneEnabled', 'false');
    const lines = quorum.members.map((m) => `server.${m.id}=${serverLine(m)}`);
    if (opts.reconfigEnabled) {
      const dynamicFile = join(dir, 'zoo.cfg.dynamic');
      writeFileSync(dynamicFile, `${lines.join('\n')}\n`);
      cfg.set('reconfigEnabled', 'true');
      cfg.set('dynamicConfigFile', dynamicFile);
    } else {
      quorum.members.forEach((m, i) => {
        cfg.set(`server.${m.id}`, lines[i]!.slice(lines[i]!.indexOf('=') + 1));
      });
    }
  } else {
    cfg.set('clientPort', String(ports.client));
    cfg.set('clientPortAddress', LOOPBACK);
  }
  for (const [key, value] of Object.entries(opts.extraConfig ?? {})) cfg.set(key, value);
  const file = join(dir, 'zoo.cfg');
  writeFileSync(file, [...cfg].map(([key, value]) => `${key}=${value}\n`).join(''));
  return file;
}

/** JVM system properties for a server with these options. */
export function serverSystemProperties(
  opts: ServerOptions,
  tls: TlsMaterial | undefined,
): Record<string, string> {
  const props: Record<string, string> = {
    // TTL nodes and container-node extensions need it.
    'zookeeper.extendedTypesEnabled': 'true',
    // Test data is disposable: skip fsync and the 64 MB txn-log preallocation (value in KB).
    'zookeeper.forceSync': 'no',
    'zookeeper.preAllocSize': '1024',
    'zookeeper.admin.enableServer': 'false',
    'zookeeper.jmx.log4j.disable': 'true',
    'org.slf4j.simpleLogger.showDateTime': 'true',
    'org.slf4j.simpleLogger.dateTimeFormat': 'HH:mm:ss.SSS',
  };
  // Read with Boolean.getBoolean("readonlymode.enabled"): no "zookeeper." prefix, so not a zoo.cfg key.
  if (opts.readOnlyMode) props['readonlymode.enabled'] = 'true';
  const superAuth = superAuthOf(opts);
  if (superAuth)
    props['zookeeper.DigestAuthenticationProvider.superDigest'] = superDigestOf(superAuth);
  if (tls) Object.assign(props, tlsSystemProperties(tls, opts.tlsClientAuth ?? 'none'));
  return props;
}
