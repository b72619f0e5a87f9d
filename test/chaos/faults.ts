// The fault injector: one fault at a time, each chosen, aimed and timed by the seeded PRNG,
// healed before the next. Every fault is logged, and so is every stretch without a quorum.
import type { ZkEnsemble } from '../harness/index.js';
import { pause } from './basics.js';
import type { SessionLinks } from './links.js';
import type { Prng } from './prng.js';
import { type Emit, FAULT_KINDS, type FaultKind, now } from './records.js';
import type { TrapBoard, TrapOp, TrapSpec } from './traps.js';

export interface Target {
  name: string;
  links: SessionLinks;
  /** Sessions of the test process take timed cuts; the worker process's do not. */
  traps?: TrapBoard;
  /** Whether the session holds a lock right now (known for sessions of the test process). */
  holding?: () => boolean;
}

export interface NemesisConfig {
  ensemble: ZkEnsemble;
  targets: readonly Target[];
  sessionTimeout: number;
  rand: Prng;
  emit: Emit;
  log: (line: string) => void;
  /** The fault kinds to draw from (default: all). */
  kinds?: readonly FaultKind[];
}

/** How long a member-start or quorum wait may take before the run counts it as broken. */
const QUORUM_WAIT_MS = 60_000;

export class Nemesis {
  private readonly kinds: readonly FaultKind[];
  private deck: FaultKind[] = [];
  /** The pid of a member paused by SIGSTOP right now. */
  private paused: number | undefined;

  constructor(private readonly config: NemesisConfig) {
    this.kinds = config.kinds ?? FAULT_KINDS;
    if (this.kinds.length === 0) throw new Error('Nemesis: no fault kinds to draw from');
  }

  /**
   * The next fault: faults come in rounds, every kind once per round in a shuffled order, so even
   * a short run sees many kinds and a long one sees them all equally often.
   */
  private draw(): FaultKind {
    if (this.deck.length === 0) {
      const deck = [...this.kinds];
      for (let i = deck.length - 1; i > 0; i--) {
        const j = this.config.rand.int(0, i);
        [deck[i], deck[j]] = [deck[j]!, deck[i]!];
      }
      this.deck = deck;
    }
    return this.deck.shift()!;
  }

  /** Injects faults until `deadline` (the one in progress then is finished and healed). */
  async run(deadline: number): Promise<void> {
    const { rand, log } = this.config;
    while (Date.now() < deadline) {
      const kind = this.draw();
      const at = now();
      try {
        const { target, detail, triggered } = await this.inject(kind);
        this.config.emit({
          t: 'fault',
          kind,
          target,
          at,
          healedAt: now(),
          triggered,
          ...(detail ? { detail } : {}),
        });
        log(
          `${kind.padEnd(16)} ${target.padEnd(10)} ${triggered ? '' : '(not triggered) '}${detail ?? ''} ${((now() - at) / 1000).toFixed(1)}s`,
        );
      } catch (error) {
        // The harness failed (a member would not come back): record it, heal, carry on.
        const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
        this.config.emit({ t: 'hung', proc: 'nemesis', what: `${kind}: ${message}`, at: now() });
        log(`${kind} failed: ${message}`);
        await this.healAll();
      }
      await pause(rand.between(500, 2_000));
    }
  }

  /** A session to hit: more often one that holds a lock right now, where faults matter most. */
  private victim(candidates: readonly Target[] = this.config.targets): Target {
    const { rand } = this.config;
    // Always the same draws, whatever is held now, so the seed's schedule stays the same.
    const preferHolder = rand.chance(0.6);
    const roll = rand.next();
    const holders = candidates.filter((t) => t.holding?.());
    const pool = preferHolder && holders.length > 0 ? holders : candidates;
    return pool[Math.floor(roll * pool.length)]!;
  }

  /** Ends every fault: links clean, traps off, every member running, one quorum. */
  async healAll(): Promise<void> {
    const { ensemble, targets } = this.config;
    if (this.paused !== undefined) {
      process.kill(this.paused, 'SIGCONT');
      this.paused = undefined;
    }
    for (const target of targets) {
      target.links.heal();
      target.traps?.disarm();
    }
    const down = ensemble.members.filter((m) => !m.running).map((m) => m.index);
    if (down.length > 0) {
      const from = now();
      await Promise.all(down.map((i) => ensemble.start(i)));
      await ensemble.waitForQuorum(QUORUM_WAIT_MS);
      // Only after a failed fault: count the repair as quorum-less, whichever member was down.
      this.config.emit({ t: 'no-quorum', from, to: now() });
    } else {
      await ensemble.waitForQuorum(QUORUM_WAIT_MS);
    }
  }

  /**
   * A member paused past the session timeout (SIGSTOP, then SIGCONT): a stalled VM or a long GC.
   * Its clients hear nothing and move on; the sessions it served may expire; a paused leader is
   * replaced (no quorum until the others elected one) and rejoins as a follower.
   */
  private async freezeMember(): Promise<{ target: string; detail: string; triggered: boolean }> {
    const { ensemble, rand, sessionTimeout: T, emit } = this.config;
    const leader = await ensemble.leader();
    const followers = await ensemble.followers();
    const aimAtLeader = rand.chance(0.5);
    const ms = rand.between(1.2 * T, 2 * T);
    const member = aimAtLeader ? leader : rand.pick(followers);
    const pid = memberPid(ensemble, member);
    const from = now();
    this.paused = pid;
    process.kill(pid, 'SIGSTOP');
    try {
      if (aimAtLeader) {
        // Quorum-less until another member leads (bounded by the pause itself).
        const others = ensemble.members.filter((m) => m.index !== member).map((m) => m.index);
        const until = Date.now() + ms;
        while (Date.now() < until) {
          const modes = await Promise.all(others.map((i) => ensemble.mode(i)));
          if (modes.includes('leader')) break;
          await pause(100);
        }
        emit({ t: 'no-quorum', from, to: now() });
      }
      await pause(Math.max(0, from + ms - now()));
    } finally {
      process.kill(pid, 'SIGCONT');
      this.paused = undefined;
    }
    await ensemble.waitForQuorum(QUORUM_WAIT_MS);
    return {
      target: `member ${member}`,
      detail: `${aimAtLeader ? 'leader' : 'follower'} SIGSTOP ${Math.round(ms)}ms`,
      triggered: true,
    };
  }

  private async inject(
    kind: FaultKind,
  ): Promise<{ target: string; detail?: string; triggered: boolean }> {
    const { ensemble, rand, sessionTimeout: T, emit } = this.config;
    switch (kind) {
      case 'kill-leader': {
        const leader = await ensemble.leader();
        const graceful = rand.chance(0.25);
        const downMs = rand.between(500, T);
        const from = now();
        await (graceful ? ensemble.stop(leader) : ensemble.kill(leader));
        // The rest elect a new leader; until then nobody can take or give a lock.
        await ensemble.waitForQuorum(QUORUM_WAIT_MS);
        emit({ t: 'no-quorum', from, to: now() });
        await pause(Math.max(0, from + downMs - now()));
        await ensemble.start(leader);
        await ensemble.waitForQuorum(QUORUM_WAIT_MS);
        return memberDown(leader, graceful, downMs);
      }
      case 'kill-follower': {
        const follower = rand.pick(await ensemble.followers());
        const graceful = rand.chance(0.25);
        const downMs = rand.between(500, T);
        await (graceful ? ensemble.stop(follower) : ensemble.kill(follower));
        await pause(downMs);
        await ensemble.start(follower);
        await ensemble.waitForQuorum(QUORUM_WAIT_MS);
        return memberDown(follower, graceful, downMs);
      }
      case 'restart-ensemble': {
        const graceful = rand.chance(0.25);
        const downMs = rand.between(0, T / 2);
        const from = now();
        const all = ensemble.members.map((m) => m.index);
        await Promise.all(all.map((i) => (graceful ? ensemble.stop(i) : ensemble.kill(i))));
        await pause(downMs);
        await Promise.all(all.map((i) => ensemble.start(i)));
        await ensemble.waitForQuorum(QUORUM_WAIT_MS);
        emit({ t: 'no-quorum', from, to: now() });
        return {
          target: 'all',
          detail: `${graceful ? 'SIGTERM' : 'SIGKILL'}, down ${Math.round(downMs)}ms`,
          triggered: true,
        };
      }
      case 'freeze-short':
      case 'freeze-long': {
        const target = this.victim();
        const mode = rand.chance(0.5) ? 'drop' : 'hold';
        const ms =
          kind === 'freeze-short' ? rand.between(0.2 * T, 0.9 * T) : rand.between(1.2 * T, 2 * T);
        target.links.freeze(mode);
        await pause(ms);
        target.links.thaw();
        return { target: target.name, detail: `${mode} ${Math.round(ms)}ms`, triggered: true };
      }
      case 'cut-create':
      case 'cut-delete':
      case 'cut-release': {
        const candidates = this.config.targets.filter((t) => t.traps);
        const target = kind === 'cut-release' ? this.victim(candidates) : rand.pick(candidates);
        const op = kind.slice('cut-'.length) as TrapOp;
        const variant = rand.chance(0.5) ? 'before-send' : 'after-send';
        const spec: TrapSpec = {
          op,
          variant,
          delayMs: variant === 'before-send' ? rand.int(1, 10) : rand.int(0, 15),
          how: rand.chance(0.75) ? 'rst' : 'fin',
        };
        const sprung = target.traps!.arm(spec);
        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([
          sprung,
          new Promise<undefined>((resolve) => {
            timer = setTimeout(() => resolve(undefined), 2 * T);
          }),
        ]);
        clearTimeout(timer);
        if (outcome === undefined) target.traps!.disarm();
        else await pause(T / 2); // let the session reconnect before the next fault
        return { target: target.name, detail: outcome ?? op, triggered: outcome !== undefined };
      }
      case 'cut-random': {
        const target = this.victim();
        const how = rand.chance(0.75) ? 'rst' : 'fin';
        await pause(rand.between(0, 500));
        target.links.cut(how);
        return { target: target.name, detail: how, triggered: true };
      }
      case 'delay': {
        const everyone = rand.chance(0.3);
        const targets = everyone ? this.config.targets : [rand.pick(this.config.targets)];
        // Replies late but the session alive: a few percent of the timeout each way. (Much more
        // makes every round trip of the slow session cost seconds, and the semaphore's guard,
        // held across several of them, then blocks everyone: slow, but no fault of the locks.)
        const ms = Math.round(rand.between(0.01 * T, 0.06 * T));
        const duration = rand.between(T, 3 * T);
        for (const t of targets) t.links.delay(ms);
        await pause(duration);
        for (const t of targets) t.links.delay(0);
        return {
          target: everyone ? 'all' : targets[0]!.name,
          detail: `${ms}ms each way for ${Math.round(duration)}ms`,
          triggered: true,
        };
      }
      case 'expire-links': {
        // Dark for longer than the session timeout: the client declares the session expired, the
        // server expires it, and the client must renew and carry on.
        const target = this.victim();
        const mode = rand.chance(0.5) ? 'drop' : 'hold';
        const ms = rand.between(1.5 * T, 2.5 * T);
        target.links.freeze(mode);
        await pause(ms);
        target.links.thaw();
        return { target: target.name, detail: `${mode} ${Math.round(ms)}ms`, triggered: true };
      }
      case 'freeze-member':
        return this.freezeMember();
      case 'isolate-member': {
        const target = this.victim();
        const fallback = rand.int(0, ensemble.members.length - 1);
        const member = target.links.connectedMember() ?? fallback;
        const proxy = target.links.proxies[member]!;
        const ms = rand.between(0.5 * T, 2 * T);
        proxy.refuse(true);
        proxy.cut();
        await pause(ms);
        proxy.refuse(false);
        return {
          target: target.name,
          detail: `from member ${member} for ${Math.round(ms)}ms`,
          triggered: true,
        };
      }
    }
  }
}

/** The JVM pid of ensemble member `i` (the harness's members are local processes). */
function memberPid(ensemble: ZkEnsemble, i: number): number {
  const pid = (ensemble.members[i] as { pid?: number } | undefined)?.pid;
  if (pid === undefined) throw new Error(`member ${i} has no local process to pause`);
  return pid;
}

/** The record of a member stopped (`graceful`) or killed for `downMs` and started again. */
function memberDown(member: number, graceful: boolean, downMs: number) {
  const detail = `${graceful ? 'SIGTERM' : 'SIGKILL'}, down ${Math.round(downMs)}ms`;
  return { target: `member ${member}`, detail, triggered: true };
}
