import { describe, expect, it } from 'vitest';
import { Heartbeat, sessionTimers } from '../../../src/session/heartbeat.js';
import { FakeClock } from './fake-clock.js';

describe('sessionTimers', () => {
  it('derives read timeout, ping interval and per-host connect timeout from the negotiated timeout', () => {
    expect(sessionTimers(30_000, 3)).toEqual({
      readTimeout: 20_000,
      pingInterval: 10_000,
      connectTimeout: 10_000,
      sessionTimeout: 30_000,
    });
    expect(sessionTimers(3_000, 1)).toEqual({
      readTimeout: 2_000,
      pingInterval: 1_000,
      connectTimeout: 3_000,
      sessionTimeout: 3_000,
    });
    // Pings never wait more than 10 s, whatever the timeout.
    expect(sessionTimers(120_000, 2).pingInterval).toBe(10_000);
  });
});

describe('Heartbeat', () => {
  function setup(timeout = 3_000) {
    const clock = new FakeClock();
    const pings: number[] = [];
    const deaths: number[] = [];
    const heartbeat = new Heartbeat(clock, sessionTimers(timeout, 1), {
      ping: () => pings.push(clock.now()),
      dead: (silentFor) => deaths.push(silentFor),
    });
    return { clock, pings, deaths, heartbeat };
  }

  it('pings after half the read timeout of silence from us, while the server keeps answering', () => {
    const { clock, pings, deaths, heartbeat } = setup();
    // The heartbeat's own listener records the ping; the session writes it (pingSent).
    heartbeat.start();
    for (let t = 0; t < 10; t++) {
      const before = pings.length;
      clock.advance(500);
      if (pings.length > before) heartbeat.pingSent();
      heartbeat.heard();
      heartbeat.pingAnswered();
    }
    expect(pings).toEqual([1_000, 2_000, 3_000, 4_000, 5_000]);
    expect(deaths).toEqual([]);
    heartbeat.stop();
    expect(clock.pendingTimers).toBe(0);
  });

  it('does not ping while requests keep the link busy', () => {
    const { clock, pings, heartbeat } = setup();
    heartbeat.start();
    for (let t = 0; t < 20; t++) {
      clock.advance(100);
      heartbeat.sent();
      heartbeat.heard();
    }
    expect(pings).toEqual([]);
  });

  it('declares the link dead once nothing was heard for the read timeout (2/3 of the session timeout)', () => {
    const { clock, deaths, heartbeat } = setup(3_000);
    heartbeat.start();
    clock.advance(1_999);
    expect(deaths).toEqual([]);
    clock.advance(1);
    expect(deaths).toEqual([2_000]);
    // It fires once and stops by itself.
    clock.advance(10_000);
    expect(deaths).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a reply proves the session only as of when its request was sent: frames that prove nothing do not keep the link', () => {
    const { clock, deaths, heartbeat } = setup(3_000);
    heartbeat.start(0);
    // Notifications and late replies keep coming, but the newest request answered was sent at
    // 500: the server may have expired the session at 3,500, whatever it sent since.
    clock.advance(1_000);
    heartbeat.sent();
    heartbeat.proven(500);
    for (let t = 0; t < 24; t++) {
      clock.advance(100);
      heartbeat.heard();
      heartbeat.sent();
    }
    expect(deaths).toEqual([]);
    expect(heartbeat.lastProven).toBe(500);
    clock.advance(100);
    expect(deaths).toEqual([3_000]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("a ping reply proves the oldest unanswered ping's send time, never a later one", () => {
    const { clock, heartbeat } = setup(3_000);
    heartbeat.start(0);
    clock.advance(100);
    heartbeat.pingSent();
    clock.advance(400);
    heartbeat.pingSent();
    clock.advance(100);
    heartbeat.pingAnswered();
    expect(heartbeat.lastProven).toBe(100);
    // The second ping's own send time is not kept (one number for all): it proves 100 again.
    heartbeat.pingAnswered();
    expect(heartbeat.lastProven).toBe(100);
    // An answer to no ping proves nothing; an older proof never moves the clock back.
    clock.advance(100);
    heartbeat.pingAnswered();
    heartbeat.proven(50);
    expect(heartbeat.lastProven).toBe(100);
    clock.advance(100);
    heartbeat.pingSent();
    heartbeat.pingAnswered();
    expect(heartbeat.lastProven).toBe(800);
    heartbeat.stop();
  });

  it('stops cleanly: no timer left and no callback after stop', () => {
    const { clock, pings, deaths, heartbeat } = setup();
    heartbeat.start();
    heartbeat.stop();
    clock.advance(60_000);
    expect(pings).toEqual([]);
    expect(deaths).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });
});
