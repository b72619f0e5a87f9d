// The model's side of the differential test: runs the script of `differential.ts` against a
// one-member model on the virtual clock and prints its log as JSON. Usage:
//   tsx test/sim/diff-main.ts --seed N --base /path --steps S --sessions K --tick MS
import { Client } from '../../src/client/client.js';
import { runScript } from './differential.js';
import { installEnvironment, Rng, Scheduler } from './env.js';
import { Ensemble } from './model/ensemble.js';
import { SimNetwork } from './net.js';

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
const ensemble = new Ensemble(
  sched,
  rng.fork(),
  {
    members: 1,
    tickTime,
    maxBuffer: 1_048_575,
    followerLag: () => 0,
    forwardLag: () => 0,
    // The real server's container sweep runs once a minute; a script is over long before.
    containerSweep: 10 * 60_000,
  },
  () => {},
  () => {},
);
const net = new SimNetwork(
  sched,
  rng.fork(),
  new Map([[ensemble.members[0]!.host, ensemble.members[0]!]]),
);
let done = false;
let log: string[] = [];
let failure: unknown = null;
runScript({
  seed,
  base,
  steps,
  sessions,
  open: (k) =>
    Client.connect(ensemble.members[0]!.host, {
      transport: net.transportFor(`s${k}`),
      sessionTimeout: 10_000,
    }),
}).then(
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
