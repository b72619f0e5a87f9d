// While the session sits on a read-only server, look for a read-write one, as the Java client
// does: ask each other host `isro` (a four-letter word on a fresh connection), first after 100 ms,
// then at doubling intervals up to a minute. The first `rw` answer wins.
import { type Clock, sleep } from './clock.js';
import type { HostAddress, HostList } from './hosts.js';
import type { Connection, Transport } from './transport.js';
import type { TlsOptions } from './types.js';

const FIRST_PROBE = 100;
const MAX_PROBE_INTERVAL = 60_000;
const PROBE_TIMEOUT = 2_000;
const ISRO = new TextEncoder().encode('isro');

/** Asks one host whether it serves reads and writes. Any failure counts as "no". */
export async function isReadWrite(
  transport: Transport,
  host: HostAddress,
  tls: TlsOptions | undefined,
  clock: Clock,
  signal: AbortSignal,
): Promise<boolean> {
  const attempt = new AbortController();
  const onAbort = () => attempt.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = clock.setTimeout(() => attempt.abort(), PROBE_TIMEOUT);
  try {
    const connection = await transport.connect({ ...host, tls, signal: attempt.signal });
    attempt.signal.addEventListener('abort', () => connection.close(), { once: true });
    connection.write(ISRO);
    let answer = '';
    const decoder = new TextDecoder();
    for await (const chunk of connection.chunks) {
      answer += decoder.decode(chunk, { stream: true });
      if (answer.length >= 2) break;
    }
    connection.close();
    return answer.startsWith('rw');
  } catch {
    return false;
  } finally {
    clock.clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

/** Probes `others` until one is read-write (returns it) or `signal` aborts (returns null). */
export async function findReadWriteServer(
  transport: Transport,
  others: () => readonly HostAddress[],
  tls: TlsOptions | undefined,
  clock: Clock,
  signal: AbortSignal,
): Promise<HostAddress | null> {
  let interval = FIRST_PROBE;
  while (!signal.aborted) {
    try {
      await sleep(clock, interval, signal);
    } catch {
      return null;
    }
    for (const host of others()) {
      if (await isReadWrite(transport, host, tls, clock, signal)) return host;
      if (signal.aborted) return null;
    }
    interval = Math.min(MAX_PROBE_INTERVAL, interval * 2);
  }
  return null;
}

/**
 * On a read-only server, keep looking for a read-write one; when found, `leave` (the session
 * obtained read-only is replaced by a read-write one, as in the Java client). Stops when the
 * connection closes or `stop` aborts.
 */
export async function leaveForReadWrite(options: {
  connection: Connection;
  current: HostAddress;
  hosts: HostList;
  transport: Transport;
  tls: TlsOptions | undefined;
  clock: Clock;
  stop: AbortSignal;
  isCurrent(connection: Connection): boolean;
  leave(found: HostAddress): void;
}): Promise<void> {
  const { connection, current, hosts } = options;
  const closed = new AbortController();
  void connection.closed.then(() => closed.abort());
  const others = () =>
    hosts.all().filter((h) => h.host !== current.host || h.port !== current.port);
  const found = await findReadWriteServer(
    options.transport,
    others,
    options.tls,
    options.clock,
    AbortSignal.any([closed.signal, options.stop]),
  );
  if (!found || !options.isCurrent(connection)) return;
  hosts.preferNext(found);
  options.leave(found);
}
