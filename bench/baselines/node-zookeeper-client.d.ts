// The part of node-zookeeper-client 1.1.3 (plain JavaScript, no bundled types) the benchmark uses.
declare module 'node-zookeeper-client' {
  import type { EventEmitter } from 'node:events';

  export interface Exception extends Error {
    getCode(): number;
    getName(): string;
  }

  export interface Event {
    getType(): number;
    getName(): string;
    getPath(): string;
  }

  export type Watcher = (event: Event) => void;
  export type Done = (error: Exception | null) => void;

  export interface Client extends EventEmitter {
    connect(): void;
    close(): void;
    create(
      path: string,
      data: Buffer | undefined,
      mode: number,
      callback: (error: Exception | null, path: string) => void,
    ): void;
    remove(path: string, version: number, callback: Done): void;
    getData(
      path: string,
      watcher: Watcher | undefined,
      callback: (error: Exception | null, data: Buffer | undefined) => void,
    ): void;
    setData(path: string, data: Buffer, version: number, callback: Done): void;
    exists(
      path: string,
      watcher: Watcher | undefined,
      callback: (error: Exception | null, stat: object | null) => void,
    ): void;
    getChildren(
      path: string,
      watcher: Watcher | undefined,
      callback: (error: Exception | null, children: string[]) => void,
    ): void;
    mkdirp(path: string, callback: (error: Exception | null, path: string) => void): void;
  }

  export function createClient(
    connectionString: string,
    options?: { sessionTimeout?: number; spinDelay?: number; retries?: number },
  ): Client;

  export const CreateMode: {
    readonly PERSISTENT: number;
    readonly EPHEMERAL: number;
    readonly PERSISTENT_SEQUENTIAL: number;
    readonly EPHEMERAL_SEQUENTIAL: number;
  };
}
