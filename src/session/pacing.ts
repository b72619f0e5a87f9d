// How fast the session dials: the time one connection attempt may take, and the pauses between
// attempts. Pure functions, so the rules are tested without sockets.

/** The longest pause before a reconnect, ms (the Java client's random 0-1 s). */
export const MAX_RECONNECT_PAUSE = 1_000;

/**
 * Time allowed for one attempt (TCP + handshake). Once a session exists it is the per-host share
 * of the session timeout. Before the first session, `connect()` has a deadline: what is left of it
 * is shared among the hosts not yet tried in this pass, so that one host that accepts TCP and
 * never answers cannot use up the whole deadline while healthy hosts wait their turn.
 */
export function attemptBudget(options: {
  /** The per-host share of the session timeout. */
  perHost: number;
  /** When `connect()` gives up (ms on the session clock), or null once a session was had. */
  deadline: number | null;
  now: number;
  hostCount: number;
  /** Attempts made so far while connecting (0 for the first). */
  attempts: number;
}): number {
  const { perHost, deadline, now, hostCount, attempts } = options;
  if (deadline === null) return perHost;
  const n = Math.max(1, hostCount);
  const leftInPass = n - (attempts % n);
  const share = Math.floor((deadline - now) / leftInPass);
  return Math.max(1, Math.min(perHost, share));
}

/**
 * The pause before dialling again after an established connection dropped: random (so that the
 * clients of a failed server do not all come back at once) and bounded, as in the Java client, by
 * 1 s, and by a quarter of the session timeout so that a short session can still be resumed in
 * time. Without it, a server that accepts the session and then drops the link (a SetWatches over
 * its jute.maxbuffer, enforce.auth) is re-dialled in a hot loop.
 */
export function reconnectPause(sessionTimeout: number, random: () => number = Math.random): number {
  const bound = Math.min(MAX_RECONNECT_PAUSE, Math.floor(sessionTimeout / 4));
  return Math.floor(random() * Math.max(0, bound));
}
