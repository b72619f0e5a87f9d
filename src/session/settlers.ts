// A promise whose settle functions go straight onto the object that will settle it. The usual
// `new Promise((resolve, reject) => { this.resolve = resolve; ... })` makes a closure and its
// context per promise; on the hot paths (a request, an acquisition, a lock node's removal) that
// garbage was a visible share of the client's allocations. One executor that closes over nothing
// serves every promise instead: a Promise runs its executor synchronously, so the object it fills
// in is known for exactly that call.

/** What {@link promiseSettledBy} fills in: the promise's resolve and reject. */
export interface Settles<T> {
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

/** The object whose promise is being made (only during {@link promiseSettledBy}). */
let filling: Settles<never> | undefined;

function fillIn(resolve: (value: never) => void, reject: (error: Error) => void): void {
  filling!.resolve = resolve;
  filling!.reject = reject;
}

/** A new promise, settled by the `resolve` and `reject` it puts on `holder`. */
export function promiseSettledBy<T>(holder: Settles<T>): Promise<T> {
  filling = holder as Settles<never>;
  try {
    return new Promise<T>(fillIn);
  } finally {
    filling = undefined;
  }
}
