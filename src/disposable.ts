// The two global declarations that our `await using` support needs, for consumers whose `lib`
// lacks `esnext.disposable` (TypeScript's default for targets up to ES2024). Referenced with
// `preserve="true"` from the declaration files that use them, so a strict consumer compiles
// without adding a lib. Only these two: `lib: ["esnext.disposable"]` would also declare
// DisposableStack and SuppressedError, which Node 20 and workerd do not have. Both merge cleanly
// with the same declarations in lib.esnext.disposable, @types/node, Deno and workers-types.

declare global {
  interface SymbolConstructor {
    /** The method that `await using` calls when the scope is left (Node 20.4+, Bun, Deno, workerd). */
    readonly asyncDispose: unique symbol;
  }
  /** An object that `await using` can release asynchronously. */
  interface AsyncDisposable {
    /** Releases the object's resources; `await using` awaits it when the scope is left. */
    [Symbol.asyncDispose](): PromiseLike<void>;
  }
}

export {};
