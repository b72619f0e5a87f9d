// A refused port is not a slow one: when every server of the connect string has refused the TCP
// connection (ECONNREFUSED), nothing listens there and waiting out the connect timeout only
// delays the answer. The library keeps its budget (a host may come up within it); the CLI, which
// a person is waiting on, gives up as soon as every host has refused once.
import { ConnectionLossError, parseConnectString, type Transport } from '../index.js';

/** Wraps `transport` to notice refusals; `allRefused` rejects once every host of `servers` refused. */
export class RefusalWatch {
  readonly transport: Transport;
  readonly allRefused: Promise<never>;
  private readonly hosts: Set<string>;
  private readonly refused = new Set<string>();
  private giveUp: (error: Error) => void = () => {};

  constructor(servers: string, base: Transport) {
    this.hosts = new Set(
      parseConnectString(servers).hosts.map(({ host, port }) => key(host, port)),
    );
    this.allRefused = new Promise<never>((_, reject) => {
      this.giveUp = reject;
    });
    // Only a race reads it; nobody may be listening when it rejects.
    this.allRefused.catch(() => {});
    this.transport = {
      connect: async (options) => {
        try {
          return await base.connect(options);
        } catch (error) {
          if ((error as { code?: unknown }).code === 'ECONNREFUSED')
            this.refuse(options.host, options.port);
          throw error;
        }
      },
    };
  }

  private refuse(host: string, port: number): void {
    this.refused.add(key(host, port));
    if (this.refused.size < this.hosts.size) return;
    const list = [...this.hosts].join(', ');
    this.giveUp(
      new ConnectionLossError(
        `CONNECTIONLOSS: every server refused the connection (ECONNREFUSED): ${list}; is ZooKeeper listening there?`,
      ),
    );
  }
}

function key(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
