// The network faults of the in-process server, by link: black holes (bytes held both ways until
// a time) and reply delays, each for a named client, a session or every link.
import type { Link, LinkFaults } from './links.js';

/** Which links a fault applies to. */
export type LinkSelector = (link: Link) => boolean;

interface Timed {
  matches: LinkSelector;
  until: number;
}

/** @internal The fault state every Link consults. */
export class NetworkFaults implements LinkFaults {
  private holes: Timed[] = [];
  /** Reply delays by what they select ('all', a client's name, a session): the last one set. */
  private readonly delays = new Map<string, { matches: LinkSelector; ms: number }>();
  readonly links = new Set<Link>();

  constructor(private readonly now: () => number) {}

  holdUntil(link: Link): number {
    let until = 0;
    const now = this.now();
    this.holes = this.holes.filter((h) => h.until > now);
    for (const hole of this.holes) if (hole.matches(link)) until = Math.max(until, hole.until);
    return until;
  }

  replyDelay(link: Link): number {
    let ms = 0;
    for (const delay of this.delays.values()) if (delay.matches(link)) ms = Math.max(ms, delay.ms);
    return ms;
  }

  forget(link: Link): void {
    this.links.delete(link);
  }

  blackHole(matches: LinkSelector, until: number): void {
    this.holes.push({ matches, until });
  }

  /** Sets (or, with 0, clears) the delay of replies on the links `key` names. */
  delayReplies(key: string, matches: LinkSelector, ms: number): void {
    if (ms > 0) this.delays.set(key, { matches, ms });
    else this.delays.delete(key);
  }
}
