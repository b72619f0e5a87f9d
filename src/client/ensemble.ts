// The ensemble's membership: reading the dynamic configuration (getConfig), changing it
// (reconfig), and following it: the client addresses are read out of the configuration text and
// become the host list, or the user replaces that list (updateServerList).
import { codecs } from '../protocol/codecs.js';
import { makeError } from '../protocol/errors.js';
import { type HostAddress, parseConnectString } from '../session/hosts.js';
import { CONFIG_NODE, CONFIG_WATCH_KEY } from '../session/watches.js';
import { checkWatcher } from './arguments.js';
import type { ClientCore } from './core.js';
import { toStat } from './stat.js';
import type { CallOptions, ReconfigOptions, Stat, WatchOptions } from './types.js';
import { watchOnSuccess } from './watching.js';

export async function getConfig(
  core: ClientCore,
  options: WatchOptions & CallOptions & { follow?: boolean },
): Promise<{ config: string; stat: Stat }> {
  const watcher = checkWatcher(options.watch, CONFIG_NODE, 'getConfig');
  const reply = await core.session.submit(
    codecs.getData,
    { path: CONFIG_NODE, watch: watcher !== undefined },
    {
      path: CONFIG_NODE,
      op: 'getConfig',
      signal: options.signal,
      onReply: watchOnSuccess(core, 'data', CONFIG_WATCH_KEY, watcher),
    },
  );
  const config = new TextDecoder().decode(reply.data ?? new Uint8Array(0));
  if (options.follow) followConfig(core, config);
  return { config, stat: toStat(reply.stat) };
}

export async function reconfig(
  core: ClientCore,
  options: ReconfigOptions,
): Promise<{ config: string; stat: Stat }> {
  const reply = await core.session.submit(
    codecs.reconfig,
    {
      joiningServers: options.joining ?? null,
      leavingServers: options.leaving ?? null,
      newMembers: options.newMembers ?? null,
      curConfigId: options.fromConfig ?? -1n,
    },
    { op: 'reconfig', signal: options.signal },
  );
  const config = new TextDecoder().decode(reply.data ?? new Uint8Array(0));
  followConfig(core, config);
  return { config, stat: toStat(reply.stat) };
}

export function updateServerList({ session, paths }: ClientCore, connectString: string): void {
  const { hosts, chroot } = parseConnectString(connectString);
  // The chroot is the client's for its whole life (every path it sends and receives is mapped
  // by it): a different one cannot take effect, so it is refused rather than silently dropped.
  // The same chroot (or none) is accepted, so a full connect string can be passed again.
  if (chroot !== '' && chroot !== paths.chroot) {
    throw makeError(
      'BADARGUMENTS',
      `invalid connect string "${connectString}": the chroot ${chroot} differs from the client's (${paths.chroot || 'none'}); a client's chroot cannot change`,
    );
  }
  session.hostList.replace(hosts);
}

function followConfig({ session }: ClientCore, config: string): void {
  const hosts = parseServerList(config);
  if (hosts.length > 0) session.hostList.replace(hosts);
}

/**
 * Lines look like `server.1=10.0.0.1:2888:3888:participant;0.0.0.0:2181`: the part after `;` is
 * the client address (`[host:]port`); a wildcard host means "the same host as the quorum address".
 */
export function parseServerList(config: string): HostAddress[] {
  const hosts: HostAddress[] = [];
  for (const line of config.split('\n')) {
    const match = /^server\.\d+=([^;]*);(.+)$/.exec(line.trim());
    if (!match) continue;
    const quorumHost = hostOf(match[1]!);
    const client = match[2]!.trim();
    const colon = client.lastIndexOf(':');
    const port = Number(colon >= 0 ? client.slice(colon + 1) : client);
    let host = colon >= 0 ? client.slice(0, colon) : '';
    if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
    if (host === '' || host === '0.0.0.0' || host === '::') host = quorumHost;
    if (Number.isInteger(port) && port > 0 && port < 65536 && host !== '')
      hosts.push({ host, port });
  }
  return hosts;
}

function hostOf(quorumAddress: string): string {
  const address = quorumAddress.trim();
  if (address.startsWith('[')) return address.slice(1, address.indexOf(']'));
  return address.split(':')[0] ?? '';
}
