// What the sessions of a bench run went through, from the library's own session channel: the
// servers they connected to, and the reconnects, expiries and renewals seen while the run lasted,
// by server. A figure taken across a reconnect or an expiry is then reported as such.
import { ChannelName, type SessionMessage } from '../../index.js';
import { channel } from '../../otel/index.js';

/** Counts per server (`host:port`), for one process or merged over all of them. */
export interface SessionEventCounts {
  /** First connections of sessions, by server: the servers measured against. */
  connects: Record<string, number>;
  /** Connections after the first (the same session resumed, or a renewed one), by server. */
  reconnects: Record<string, number>;
  /** Sessions that expired, by the server they last had. */
  expiries: Record<string, number>;
  /** Sessions renewed after an expiry. */
  renewals: number;
}

export function emptyCounts(): SessionEventCounts {
  return { connects: {}, reconnects: {}, expiries: {}, renewals: 0 };
}

function bump(counts: Record<string, number>, server: string | null): void {
  const key = server ?? 'unknown';
  counts[key] = (counts[key] ?? 0) + 1;
}

/** Listens to the session channel from construction until `stop()`. */
export class SessionEventLog {
  private readonly counts = emptyCounts();
  private readonly listener = (raw: unknown) => {
    const message = raw as SessionMessage;
    if (message.type === 'connect') {
      bump(message.reconnect ? this.counts.reconnects : this.counts.connects, message.server);
    } else if (message.type === 'state' && message.state === 'expired') {
      bump(this.counts.expiries, message.server);
    } else if (message.type === 'renewed') {
      this.counts.renewals++;
    }
  };

  constructor() {
    channel(ChannelName.session).subscribe(this.listener);
  }

  /** Stops listening; returns what was seen. */
  stop(): SessionEventCounts {
    channel(ChannelName.session).unsubscribe(this.listener);
    return this.counts;
  }
}

/** The counts of every process of a run, added up. */
export function mergeCounts(
  parts: readonly (SessionEventCounts | undefined)[],
): SessionEventCounts {
  const total = emptyCounts();
  const add = (into: Record<string, number>, from: Record<string, number>) => {
    for (const [server, n] of Object.entries(from)) into[server] = (into[server] ?? 0) + n;
  };
  for (const part of parts) {
    if (!part) continue;
    add(total.connects, part.connects);
    add(total.reconnects, part.reconnects);
    add(total.expiries, part.expiries);
    total.renewals += part.renewals;
  }
  return total;
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
const byServer = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([server, n]) => `${server} ${n}`)
    .join(', ');

/** The report's lines: the servers measured against, then the session events (or none). */
export function describeCounts(counts: SessionEventCounts): { servers: string; events: string } {
  const servers = `servers: ${byServer(counts.connects) || 'none'} (sessions connected first)`;
  const parts: string[] = [];
  if (sum(counts.reconnects) > 0)
    parts.push(`${sum(counts.reconnects)} reconnects (${byServer(counts.reconnects)})`);
  if (sum(counts.expiries) > 0)
    parts.push(`${sum(counts.expiries)} expiries (${byServer(counts.expiries)})`);
  if (counts.renewals > 0) parts.push(`${counts.renewals} renewals`);
  const events =
    parts.length === 0
      ? 'session events during the run: none (no reconnect, no expiry)'
      : `session events during the run: ${parts.join(', ')}; figures spanning them are affected`;
  return { servers, events };
}
