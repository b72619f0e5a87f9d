// Counts the AbortControllers and AbortSignal.any signals the library makes, for the tests that
// check that a wait joins its caller's signal, its timeout and its object's close without making
// signals of its own: globalThis.AbortController and AbortSignal.any are wrapped while a census
// runs, and each one made from the library's own code (src/, apart from the session's and the
// in-process server's, which live as long as a client or server does) is counted.

const LONG_LIVED = /[\\/]src[\\/](session|testing)[\\/]/;
const LIBRARY = /[\\/]src[\\/]/;

/** Whether the caller of the wrapped function is the library (not the session or a test). */
function fromLibrary(): boolean {
  const frames = (new Error().stack ?? '').split('\n').slice(3);
  return frames.some((frame) => LIBRARY.test(frame)) && !frames.some((f) => LONG_LIVED.test(f));
}

/**
 * Starts a census: `controllers` and `joined` count the library's `new AbortController()` and
 * `AbortSignal.any()` calls since the start; `stop()` puts the real ones back.
 */
export function signalCensus(): { controllers(): number; joined(): number; stop(): void } {
  const RealController = globalThis.AbortController;
  const realAny = AbortSignal.any;
  let controllers = 0;
  let joined = 0;
  globalThis.AbortController = class extends RealController {
    constructor() {
      super();
      if (fromLibrary()) controllers++;
    }
  };
  AbortSignal.any = (signals: AbortSignal[]) => {
    if (fromLibrary()) joined++;
    return realAny.call(AbortSignal, signals);
  };
  return {
    controllers: () => controllers,
    joined: () => joined,
    stop() {
      globalThis.AbortController = RealController;
      AbortSignal.any = realAny;
    },
  };
}
