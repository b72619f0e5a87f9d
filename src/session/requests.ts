// A request's life inside the session: queued (not yet written), then pending (written, awaiting
// its reply in FIFO order), then settled exactly once.
import type { Reader } from '../protocol/reader.js';
import type { RequestMessage } from '../telemetry/messages.js';

/** Credentials kept for the session's life: re-sent after every reconnect. */
export interface AuthEntry {
  readonly scheme: string;
  readonly auth: Uint8Array;
  /** Callers of addAuth waiting for this entry's next reply. */
  waiters: { resolve(): void; reject(error: Error): void }[];
}

export type Outbound =
  | { readonly kind: 'request'; readonly frame: Uint8Array; readonly request: PendingRequest }
  | { readonly kind: 'auth'; readonly frame: Uint8Array; readonly entry: AuthEntry }
  /** Pings and SetWatches: owned by one connection, dropped (not retried) when it breaks. */
  | { readonly kind: 'control'; readonly frame: Uint8Array; readonly request?: PendingRequest };

export interface PendingRequest {
  readonly xid: number;
  readonly op: string;
  readonly path?: string;
  /** Decodes a successful reply body. */
  read(reader: Reader): unknown;
  /** Runs before settling, with the reply's error code (0 = OK): registers watches. */
  onReply?(err: number): void;
  /** Runs instead of `onReply` when the reply comes after the caller stopped waiting. */
  onAbandonedReply?(err: number): void;
  settle(error: Error | null, value?: unknown): void;
  /**
   * Settles with the server's refusal `code` of a request under `chroot`, in place of
   * `settle(replyError(...))`: a request whose caller reads only the code can take it without an
   * Error being made (see CallSink.refused).
   */
  refuse?(code: number, chroot: string): void;
  /** True once the caller stopped waiting (aborted); the reply is still consumed in order. */
  abandoned: boolean;
  /** When it was written (session clock, ms); 0 until then. Its reply proves the session alive then. */
  sentAt: number;
  /** The request's telemetry context, when someone listens to requests. */
  readonly trace?: RequestMessage | undefined;
}

export function makeRequest<Res>(details: {
  xid: number;
  op: string;
  path?: string;
  read: (reader: Reader) => Res;
  onReply?: (err: number) => void;
  onAbandonedReply?: (err: number) => void;
  resolve: (value: Res) => void;
  reject: (error: Error) => void;
}): PendingRequest {
  let settled = false;
  return {
    xid: details.xid,
    op: details.op,
    path: details.path,
    read: details.read,
    onReply: details.onReply,
    onAbandonedReply: details.onAbandonedReply,
    abandoned: false,
    sentAt: 0,
    settle(error, value) {
      if (settled) return;
      settled = true;
      if (error) details.reject(error);
      else details.resolve(value as Res);
    },
  };
}
