// The part of workerd's built-in `cloudflare:sockets` module the cloudflare transport uses, so the
// project type-checks without @cloudflare/workers-types. Compile-time only: nothing is emitted.
declare module 'cloudflare:sockets' {
  export interface SocketAddress {
    hostname: string;
    port: number;
  }
  export interface SocketOptions {
    secureTransport?: 'off' | 'on' | 'starttls';
    allowHalfOpen?: boolean;
  }
  export interface Socket {
    readonly readable: ReadableStream<Uint8Array>;
    readonly writable: WritableStream<Uint8Array>;
    readonly opened: Promise<unknown>;
    readonly closed: Promise<void>;
    close(): Promise<void>;
  }
  export function connect(address: SocketAddress | string, options?: SocketOptions): Socket;
}
