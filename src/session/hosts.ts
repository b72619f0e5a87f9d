// Connect strings and the host list walked while (re)connecting.
import { makeError, type ZooKeeperError } from '../protocol/errors.js';
import { pathProblem } from '../protocol/paths.js';

/** One server of a connect string. */
export interface HostAddress {
  /** Host name or IP address (IPv6 without brackets). */
  host: string;
  /** TCP port (2181 when the connect string gives none). */
  port: number;
}

/** A connect string taken apart by {@link parseConnectString}. */
export interface ParsedConnectString {
  /** The servers, in the order given. */
  hosts: HostAddress[];
  /** The chroot path every client path is relative to; '' when there is no chroot. */
  chroot: string;
}

const DEFAULT_PORT = 2181;

function badConnectString(input: string, reason: string): ZooKeeperError {
  return makeError('BADARGUMENTS', `invalid connect string "${input}": ${reason}`);
}

function parseHost(entry: string, input: string): HostAddress {
  let host: string;
  let portText: string | undefined;
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    if (close < 0) throw badConnectString(input, `unclosed "[" in "${entry}"`);
    host = entry.slice(1, close);
    const rest = entry.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) throw badConnectString(input, `unexpected "${rest}" after "]"`);
      portText = rest.slice(1);
    }
  } else {
    const colon = entry.lastIndexOf(':');
    if (colon >= 0 && entry.indexOf(':') !== colon) {
      throw badConnectString(input, `IPv6 address "${entry}" must be in brackets`);
    }
    host = colon >= 0 ? entry.slice(0, colon) : entry;
    portText = colon >= 0 ? entry.slice(colon + 1) : undefined;
  }
  if (host === '') throw badConnectString(input, `empty host in "${entry}"`);
  let port = DEFAULT_PORT;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      throw badConnectString(input, `bad port "${portText}"`);
    }
    port = Number(portText);
  }
  return { host, port };
}

/** Parses `host[:port][,host[:port]...][/chroot]`; IPv6 hosts in brackets; default port 2181. */
export function parseConnectString(input: string): ParsedConnectString {
  if (typeof input !== 'string') throw badConnectString(String(input), 'not a string');
  const slash = input.indexOf('/');
  const hostPart = slash >= 0 ? input.slice(0, slash) : input;
  let chroot = slash >= 0 ? input.slice(slash) : '';
  if (chroot === '/') chroot = '';
  if (chroot !== '') {
    const problem = pathProblem(chroot);
    if (problem) throw badConnectString(input, `chroot ${problem}`);
  }
  const hosts = hostPart
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => parseHost(entry, input));
  if (hosts.length === 0) throw badConnectString(input, 'no hosts');
  return { hosts, chroot };
}

export function formatHost({ host, port }: HostAddress): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The ensemble as the client walks it: shuffled once, then round-robin. A full cycle without a
 * session tells the caller to back off before the next one.
 */
export class HostList {
  private hosts: HostAddress[];
  private index = -1;
  private lastConnected = -1;

  constructor(hosts: readonly HostAddress[], shuffle = true) {
    this.hosts = shuffle ? shuffled(hosts) : [...hosts];
  }

  get size(): number {
    return this.hosts.length;
  }

  all(): readonly HostAddress[] {
    return this.hosts;
  }

  /** The next host, and whether the walk has come round to the last host that gave a session. */
  next(): { host: HostAddress; cycled: boolean } {
    this.index = (this.index + 1) % this.hosts.length;
    const cycled = this.lastConnected >= 0 ? this.index === this.lastConnected : this.index === 0;
    return { host: this.hosts[this.index]!, cycled };
  }

  /** Makes `host` the next one `next()` returns (a read-write server found by probing). */
  preferNext(host: HostAddress): void {
    const at = this.hosts.findIndex((h) => h.host === host.host && h.port === host.port);
    if (at >= 0) this.index = (at - 1 + this.hosts.length) % this.hosts.length;
  }

  markConnected(): void {
    this.lastConnected = this.index;
  }

  /** Replaces the member list (after a reconfig), keeping the current host first if still present. */
  replace(hosts: readonly HostAddress[]): void {
    const current = this.hosts[this.index];
    const next = shuffled(hosts);
    const keep = current
      ? next.findIndex((h) => h.host === current.host && h.port === current.port)
      : -1;
    if (keep > 0) next.unshift(...next.splice(keep, 1));
    this.hosts = next;
    this.index = keep >= 0 ? 0 : -1;
    this.lastConnected = keep >= 0 ? 0 : -1;
  }
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
