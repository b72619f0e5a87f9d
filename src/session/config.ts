// Reading the client addresses out of ZooKeeper's dynamic configuration text, so the client can
// follow the ensemble after a reconfig.
import type { HostAddress } from './hosts.js';

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
