// The separate worker process: the same workload as the test process, in its own Node process
// with its own sessions (whose links the parent's proxies carry, so faults reach them too).
// Protocol: the config is argv[2] (JSON); records go to stdout as JSON lines; "READY" once every
// session is up; the line "stop" on stdin stops the workload, closes the sessions and answers
// "DONE". A closed stdin (the parent died) does the same.
import { createInterface } from 'node:readline';
import { toLine } from './records.js';
import { Workload, type WorkloadConfig } from './workload.js';

export type ChildConfig = Omit<WorkloadConfig, 'emit'> & { stopLimitMs: number };

const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
const workload = new Workload({
  ...config,
  emit: (record) => process.stdout.write(`${toLine(record)}\n`),
});

let stopping: Promise<void> | undefined;
function stop(): Promise<void> {
  stopping ??= (async () => {
    await workload.stop(config.stopLimitMs);
    await workload.closeClients();
    process.stdout.write('DONE\n');
    process.exit(0);
  })();
  return stopping;
}

const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  if (line.trim() === 'stop') void stop();
});
input.on('close', () => void stop());

await workload.ready();
workload.start();
process.stdout.write('READY\n');
