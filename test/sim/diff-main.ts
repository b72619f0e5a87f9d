// The model's side of the differential test: runs the script of `differential.ts` against a
// one-member model on the virtual clock and prints its log as JSON. Usage:
//   tsx test/sim/diff-main.ts --seed N --base /path --steps S --sessions K --tick MS [--script ops]
// (--script ops: the script over every opcode, differential-ops.ts)
//   --divergence wrong-code|lost-event plants a divergence in the model (every NONODE answered as
//   NOAUTH; the first watch event never sent), which the differential test must catch.
import { Client } from '../../src/client/client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Cnxn } from '../../src/testing/model/cnxn.js';
import { runScript } from './differential.js';
import { runOpsScript } from './differential-ops.js';
import { installEnvironment, Rng, Scheduler } from './env.js';
import { oneMemberWorld } from './one-member.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!, process.argv[i + 1]!);
const seed = Number(args.get('--seed') ?? 1);
const base = args.get('--base') ?? '/diff';
const steps = Number(args.get('--steps') ?? 100);
const sessions = Number(args.get('--sessions') ?? 3);
const tickTime = Number(args.get('--tick') ?? 2000);

plantDivergence(args.get('--divergence'));

/** Makes the model answer differently from the real server, for the test that must see it. */
function plantDivergence(kind: string | undefined): void {
  if (kind === undefined) return;
  const model = Cnxn.prototype as unknown as {
    send(xid: number, reply: { err: number }): void;
    notify(type: string, path: string): void;
  };
  if (kind === 'wrong-code') {
    const send = model.send;
    model.send = function (this: unknown, xid, reply) {
      const wrong = reply.err === ErrorCode.NONODE ? { ...reply, err: ErrorCode.NOAUTH } : reply;
      send.call(this, xid, wrong);
    };
  } else if (kind === 'lost-event') {
    const notify = model.notify;
    let dropped = false;
    model.notify = function (this: unknown, type, path) {
      if (!dropped) {
        dropped = true;
        return;
      }
      notify.call(this, type, path);
    };
  } else throw new Error(`unknown --divergence ${kind}`);
}

const sched = new Scheduler();
const rng = new Rng(seed ^ 0x5eed);
const env = installEnvironment(sched, rng.fork(), 1_700_000_000_000);
const { ensemble, net } = oneMemberWorld(sched, rng, tickTime);
let done = false;
let log: string[] = [];
let failure: unknown = null;
const open = (k: number) =>
  Client.connect(ensemble.members[0]!.host, {
    transport: net.transportFor(`s${k}`),
    sessionTimeout: 10_000,
  });
(args.get('--script') === 'ops'
  ? runOpsScript({ seed, base, steps, open })
  : runScript({ seed, base, steps, sessions, open })
).then(
  (lines) => {
    log = lines;
    done = true;
  },
  (error: unknown) => {
    failure = error;
    done = true;
  },
);
while (!done && sched.now < 3_600_000) await sched.run(sched.now + 1_000, () => {});
env.restore();
if (failure) {
  console.error(failure);
  process.exitCode = 1;
} else console.log(JSON.stringify(log));
