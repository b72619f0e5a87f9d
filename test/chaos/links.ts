// One client session's network: a TcpProxy in front of every ensemble member, so a fault can hit
// this session's links alone (freeze, cut, delay, refuse) while everyone else carries on.
import { type FreezeMode, TcpProxy, type ZkEnsemble } from '../harness/index.js';

export class SessionLinks {
  private constructor(
    readonly name: string,
    /** proxies[i] leads to ensemble member i. */
    readonly proxies: readonly TcpProxy[],
  ) {}

  static async open(name: string, ensemble: ZkEnsemble): Promise<SessionLinks> {
    const proxies = await Promise.all(ensemble.members.map((m) => TcpProxy.start(m.host, m.port)));
    return new SessionLinks(name, proxies);
  }

  /** The connect string a client of this session uses: every proxy. */
  get connectString(): string {
    return this.proxies.map((p) => p.connectString).join(',');
  }

  freeze(mode: FreezeMode): void {
    for (const p of this.proxies) p.freeze(mode);
  }

  thaw(): void {
    for (const p of this.proxies) p.thaw();
  }

  cut(how: 'rst' | 'fin' = 'rst'): void {
    for (const p of this.proxies) p.cut(how);
  }

  delay(ms: number): void {
    for (const p of this.proxies) p.delay(ms);
  }

  /** Index of the member this session's live connection goes to, if any. */
  connectedMember(): number | undefined {
    const i = this.proxies.findIndex((p) => p.connections() > 0);
    return i < 0 ? undefined : i;
  }

  /** Client-to-server bytes delivered so far, over every link. */
  bytesUp(): number {
    return this.proxies.reduce((sum, p) => sum + p.bytes().up, 0);
  }

  /** Back to a clean network: no freeze, no delay, nothing refused. */
  heal(): void {
    for (const p of this.proxies) {
      p.thaw();
      p.delay(0);
      p.refuse(false);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.proxies.map((p) => p.close()));
  }
}
