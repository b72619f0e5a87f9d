// Cuts timed to one lock operation: the fault injector arms a trap on a session, and the next
// contender create, cleanup delete or release that session's locks make springs it. `before-send`
// drops the request into a black hole and resets the link (the server never sees it);
// `after-send` waits until the proxy has delivered the request to the server, then cuts after
// `delayMs`, so the reply is usually lost while the operation was applied.

import type { Client } from '../../src/index.js';
import { CreateMode } from '../../src/index.js';
import type { RecipeClient } from '../../src/locks/index.js';
import { forwardLockClient } from '../support/forward-lock-client.js';
import type { SessionLinks } from './links.js';

export type TrapOp = 'create' | 'delete' | 'release';

export interface TrapSpec {
  op: TrapOp;
  variant: 'before-send' | 'after-send';
  /** ms between the request reaching the server (or the black hole) and the cut. */
  delayMs: number;
  how: 'rst' | 'fin';
}

/** At most one armed trap per session. */
export class TrapBoard {
  private armed: { spec: TrapSpec; sprung: (detail: string) => void } | undefined;

  /** Arms `spec`; resolves with a description once it springs. */
  arm(spec: TrapSpec): Promise<string> {
    return new Promise((resolve) => {
      this.armed = { spec, sprung: resolve };
    });
  }

  disarm(): void {
    this.armed = undefined;
  }

  /** The armed trap if it is for `op` (taking it off the board). */
  take(op: TrapOp): { spec: TrapSpec; sprung: (detail: string) => void } | undefined {
    if (this.armed?.spec.op !== op) return undefined;
    const trap = this.armed;
    this.armed = undefined;
    return trap;
  }
}

/**
 * The lock-facing side of a session's client: everything goes to `client`, but contender creates
 * and deletes first pass the session's trap board. `held` names the lock nodes this session
 * holds: a delete of one of them is a release, any other delete is a cleanup.
 */
export function trappedClient(
  client: Client,
  links: SessionLinks,
  board: TrapBoard,
  held: ReadonlySet<string>,
): RecipeClient {
  const spring = <T>(op: TrapOp, call: () => Promise<T>): Promise<T> => {
    const trap = board.take(op);
    if (!trap) return call();
    const { spec } = trap;
    if (spec.variant === 'before-send') {
      links.freeze('drop');
      const result = call();
      setTimeout(() => {
        links.cut(spec.how);
        links.thaw();
        trap.sprung(`${op} ${spec.variant} ${spec.how}`);
      }, spec.delayMs);
      return result;
    }
    const before = links.bytesUp();
    const result = call();
    const started = Date.now();
    const poll = () => {
      if (links.bytesUp() > before || Date.now() - started > 2_000) {
        setTimeout(() => {
          links.cut(spec.how);
          trap.sprung(`${op} ${spec.variant} +${spec.delayMs}ms ${spec.how}`);
        }, spec.delayMs);
      } else setImmediate(poll);
    };
    setImmediate(poll);
    return result;
  };

  return forwardLockClient(client, {
    create2: (path, data, options) => {
      const call = () => client.create2(path, data, options);
      return options?.mode === CreateMode.EPHEMERAL_SEQUENTIAL ? spring('create', call) : call();
    },
    delete: (path, version, options) =>
      spring(held.has(path) ? 'release' : 'delete', () => client.delete(path, version, options)),
  });
}
