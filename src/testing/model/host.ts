// What the model server needs from whoever runs it: a clock with a task queue, a random source,
// and the server's end of each client connection. The simulator supplies virtual ones (its
// scheduler and network); `startServer` supplies real timers, sockets and in-memory pipes.

/** Which side of the wire a task belongs to: the model schedules only server tasks. */
export type TaskSide = 'client' | 'server';

/** The clock and task queue the model runs on. */
export interface ModelScheduler {
  /** Milliseconds since the clock started. */
  readonly now: number;
  /** Runs `fn` after `delay` ms. */
  at(delay: number, side: TaskSide, fn: () => void): unknown;
  /** Runs `fn` at the absolute time `time` (never before now), in order with earlier calls. */
  atTime(time: number, side: TaskSide, fn: () => void): unknown;
}

/** The random source the model draws from (session passwords, the order of listed children). */
export interface ModelRng {
  /** A whole number in [min, max]. */
  int(min: number, max: number): number;
}

/** The server's end of one connection. */
export interface ServerEnd {
  readonly id: number;
  /** The name of the client process (fault controls address clients by it). */
  readonly client: string;
  send(bytes: Uint8Array): void;
  close(): void;
  onData: (bytes: Uint8Array) => void;
  onClose: () => void;
}

/** A member accepting connections (the model server). */
export interface Acceptor {
  readonly up: boolean;
  accept(end: ServerEnd): void;
}
