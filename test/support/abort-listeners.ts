// Counts the abort listeners on a caller's AbortSignal, for the tests that check that many waits
// on one signal share one listener (no MaxListenersExceededWarning) and leave none behind.
import { getEventListeners } from 'node:events';

/** The signal's abort listeners now, and the most it has had at once since (checked at each add). */
export function countListeners(signal: AbortSignal): { now(): number; most(): number } {
  let most = 0;
  const add = signal.addEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
    add(...args);
    most = Math.max(most, getEventListeners(signal, 'abort').length);
  }) as AbortSignal['addEventListener'];
  return { now: () => getEventListeners(signal, 'abort').length, most: () => most };
}
