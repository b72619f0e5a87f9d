// The links between clients and the model's members: one Link per client connection, whatever
// carries it (an in-memory pipe or a TCP socket). Every byte passes through its Link, which is
// where the network faults live: a black hole (bytes held both ways until it ends, as TCP
// retransmits them), a delay on replies, and a drop (the server closes the connection).

import type { TaskClock } from './clock.js';
import type { ServerEnd } from './model/host.js';

/** The far end a Link hands bytes to: the client's side of the pipe or socket. */
export interface ClientSide {
  deliver(bytes: Uint8Array): void;
  /** The server closed the connection (or it was dropped): the client sees it closed. */
  end(): void;
}

/** @internal One client connection to one member. */
export class Link {
  readonly server: ServerEnd;
  closed = false;
  private toServerAt = 0;
  private toClientAt = 0;
  private pendingToServer = 0;
  private pendingToClient = 0;

  /**
   * A new link, registered with `faults` so the network faults reach it; when `dead` (the member
   * is down or the server is closing) it closes on the next microtask, as a refused connection.
   */
  static open(
    faults: LinkFaults & { readonly links: Set<Link> },
    clock: TaskClock,
    id: number,
    client: string,
    member: number,
    clientSide: ClientSide,
    dead: boolean,
  ): Link {
    const link = new Link(faults, clock, id, client, member, clientSide);
    faults.links.add(link);
    if (dead) queueMicrotask(() => link.close());
    return link;
  }

  constructor(
    private readonly faults: LinkFaults,
    private readonly clock: TaskClock,
    readonly id: number,
    readonly client: string,
    readonly member: number,
    private readonly clientSide: ClientSide,
  ) {
    this.server = {
      id,
      client,
      send: (bytes) => this.toClient(bytes),
      close: () => this.close(),
      onData: () => {},
      onClose: () => {},
    };
  }

  /** Bytes the client wrote, on their way to the member. */
  toServer(bytes: Uint8Array): void {
    if (this.closed) return;
    const copy = bytes.slice();
    const hold = this.faults.holdUntil(this);
    if (hold <= this.clock.now && this.pendingToServer === 0) {
      queueMicrotask(() => {
        if (!this.closed) this.server.onData(copy);
      });
      return;
    }
    this.pendingToServer++;
    this.toServerAt = Math.max(this.toServerAt, hold, this.clock.now);
    this.clock.atTime(this.toServerAt, 'server', () => {
      this.pendingToServer--;
      if (!this.closed) this.server.onData(copy);
    });
  }

  private toClient(bytes: Uint8Array): void {
    if (this.closed) return;
    const copy = bytes.slice();
    const now = this.clock.now;
    const due = Math.max(this.faults.holdUntil(this), now + this.faults.replyDelay(this));
    if (due <= now && this.pendingToClient === 0) {
      this.clientSide.deliver(copy);
      return;
    }
    this.pendingToClient++;
    this.toClientAt = Math.max(this.toClientAt, due);
    this.clock.atTime(this.toClientAt, 'server', () => {
      this.pendingToClient--;
      if (!this.closed) this.clientSide.deliver(copy);
    });
  }

  /** The server side closes (or a fault drops the connection): both ends learn of it. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.faults.forget(this);
    this.clientSide.end();
    this.server.onClose();
  }

  /** The client closed its end: the member sees the close after the bytes already sent. */
  clientClosed(): void {
    if (this.closed) return;
    const finish = () => {
      if (this.closed) return;
      this.closed = true;
      this.faults.forget(this);
      this.server.onClose();
    };
    if (this.pendingToServer === 0) queueMicrotask(finish);
    else this.clock.atTime(this.toServerAt, 'server', finish);
  }
}

/** @internal What the Links ask of the fault state. */
export interface LinkFaults {
  holdUntil(link: Link): number;
  replyDelay(link: Link): number;
  forget(link: Link): void;
}
