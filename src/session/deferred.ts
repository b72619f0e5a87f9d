// A promise resolved from outside (Promise.withResolvers needs Node 22): what a transport's
// writer waits on until its backlog drains.

/** A pending promise and the function that resolves it. */
export interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
}

/** A new pending promise with its resolve function. */
export function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
