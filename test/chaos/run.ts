// The long chaos run from the command line:
//   npx tsx test/chaos/run.ts --minutes 10 --seed 42 [--session-timeout 4000] [--log file.jsonl]
//     [--sessions 4] [--child-sessions 2] [--faults kill-leader,freeze-long] [--plant] [--no-renew] [--quiet]
// `--seed` takes a comma-separated list too; the minutes are then shared between the seeds.
// Prints the summary as text and as JSON (last line); exits 1 unless the run was clean.
import { parseArgs } from 'node:util';
import { killAllChildren } from '../harness/index.js';
import { FAULT_KINDS, type FaultKind } from './records.js';
import { clean, runSuite } from './suite.js';
import { formatSummary } from './summary.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '2' },
    seed: { type: 'string' },
    'session-timeout': { type: 'string', default: '4000' },
    sessions: { type: 'string', default: '4' },
    'child-sessions': { type: 'string', default: '2' },
    log: { type: 'string' },
    // Holders ignore their lease signals: a run that must report violations (proves the checker).
    plant: { type: 'boolean', default: false },
    // Only these fault kinds (comma-separated), e.g. --faults freeze-long,kill-leader
    faults: { type: 'string' },
    quiet: { type: 'boolean', default: false },
    // Clients do not renew expired sessions: the run shows the workload stopping.
    'no-renew': { type: 'boolean', default: false },
  },
});

function positive(name: string, text: string | undefined, allowZero = false): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    console.error(
      `--${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got ${text}`,
    );
    process.exit(2);
  }
  return value;
}

function faultKinds(text: string): FaultKind[] {
  const kinds = text.split(',').map((k) => k.trim());
  for (const kind of kinds) {
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
      console.error(`unknown fault kind ${kind}; known: ${FAULT_KINDS.join(', ')}`);
      process.exit(2);
    }
  }
  return kinds as FaultKind[];
}

const minutes = positive('minutes', values.minutes);
const seeds = (values.seed ?? String(Math.floor(Math.random() * 2 ** 31)))
  .split(',')
  .map((s) => Math.trunc(positive('seed', s.trim(), true)));
const sessionTimeout = positive('session-timeout', values['session-timeout']);

const started = Date.now();
try {
  const { summary, logFile } = await runSuite({
    seeds,
    durationMs: (minutes * 60_000) / seeds.length,
    sessionTimeout,
    mainSessions: Math.trunc(positive('sessions', values.sessions)),
    childSessions: Math.trunc(positive('child-sessions', values['child-sessions'], true)),
    ...(values.log ? { logFile: values.log } : {}),
    plant: values.plant,
    renewSession: !values['no-renew'],
    ...(values.faults ? { kinds: faultKinds(values.faults) } : {}),
    log: values.quiet
      ? () => {}
      : (line) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`),
  });
  console.log(formatSummary(summary));
  if (logFile) console.log(`log: ${logFile}`);
  console.log(`wall time ${Math.round((Date.now() - started) / 1000)} s`);
  console.log(JSON.stringify(summary));
  process.exitCode = clean(summary) ? 0 : 1;
} catch (error) {
  console.error(error);
  process.exitCode = 2;
} finally {
  killAllChildren();
}
// Nothing of the run may keep the process alive; leave even if a stray timer would.
process.exit(process.exitCode ?? 0);
