// The model's side of the differential test: runs the script of `differential.ts` against a
// one-member model on the virtual clock and prints its log as JSON. Usage:
//   tsx test/sim/diff-main.ts --seed N --base /path --steps S --sessions K --tick MS [--script ops]
// (--script ops: the script over every opcode, differential-ops.ts)
import { Client } from '../../src/client/client.js';
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
