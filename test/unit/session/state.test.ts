import { describe, expect, it } from 'vitest';
import { isConnected, isFinal, StateMachine } from '../../../src/session/state.js';
import type { SessionState } from '../../../src/session/types.js';
import { until } from '../../support/wait.js';

describe('StateMachine', () => {
  it('emits allowed moves in order and refuses others', () => {
    const machine = new StateMachine();
    const seen: string[] = [];
    machine.subscribe((state, previous) => seen.push(`${previous}>${state}`));
    expect(machine.transition('suspended')).toBe(false);
    expect(machine.transition('connected')).toBe(true);
    expect(machine.transition('suspended')).toBe(true);
    expect(machine.transition('connected-readonly')).toBe(true);
    expect(machine.transition('expired')).toBe(true);
    expect(machine.transition('connected')).toBe(false);
    expect(seen).toEqual([
      'connecting>connected',
      'connected>suspended',
      'suspended>connected-readonly',
      'connected-readonly>expired',
    ]);
  });

  it('has exactly three final states', () => {
    const all: SessionState[] = [
      'connecting',
      'connected',
      'connected-readonly',
      'suspended',
      'expired',
      'auth-failed',
      'closed',
    ];
    expect(all.filter(isFinal)).toEqual(['expired', 'auth-failed', 'closed']);
    expect(all.filter(isConnected)).toEqual(['connected', 'connected-readonly']);
  });

  it('keeps going when a listener throws, and unsubscribes', async () => {
    const machine = new StateMachine();
    const seen: string[] = [];
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on('uncaughtException', onError);
    try {
      machine.subscribe(() => {
        throw new Error('listener bug');
      });
      const unsubscribe = machine.subscribe((s) => seen.push(s));
      machine.transition('connected');
      unsubscribe();
      machine.transition('closed');
      // A listener's error is rethrown outside the transition, later: wait for both.
      await until(() => errors.length >= 2, 'the listener errors to be rethrown');
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(seen).toEqual(['connected']);
    expect(machine.state).toBe('closed');
    expect(errors).toHaveLength(2);
  });
});
