// bench [SCENARIO] [options]: lock and request throughput of the ensemble at hand.

import { benchConfig } from '../bench/config.js';
import { runBench } from '../bench/run.js';
import { type Command, JSON_OPTION } from './types.js';

/** `m3x7k2-a1b2`: time-ordered, short, unique enough for a node name. */
function newRunId(): string {
  return `${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 6)}`;
}

export const bench: Command = {
  name: 'bench',
  usage: 'bench [SCENARIO] [OPTIONS]',
  summary: 'measure lock handoffs and request throughput of the ensemble',
  details:
    'Scenarios: mutex (N sessions on one lock), paths (sessions spread over --paths locks),\n' +
    'rwlock (reads and writes on one read/write lock, --read-percent reads), semaphore (leases,\n' +
    '--kind semaphore:N, default 4), exclusive (one ephemeral node: shows the herd), raw\n' +
    '(getData, setData, create+delete; each sequential, then --depth requests in flight).\n' +
    'Reports throughput, acquire latency p50/p99/p999, handoff latency (release to the next\n' +
    'grant), fairness across sessions and errors; latencies merge exactly across --processes.\n' +
    'Safe on a shared cluster: everything lives under one root of its own (default\n' +
    '/zkts-bench/<run id>), removed at the end and on Ctrl-C; an existing root is used only when\n' +
    'empty. A live progress line is shown on a terminal.',
  options: [
    { long: 'sessions', short: 'c', value: 'N', help: 'sessions in all (default 8)' },
    { long: 'paths', value: 'N', help: 'lock paths of the paths scenario (default 8)' },
    {
      long: 'duration',
      short: 'd',
      value: 'MS',
      help: 'length of each measured round (default 5000)',
    },
    { long: 'warmup', value: 'MS', help: 'unmeasured time before the rounds (default 1000)' },
    { long: 'rounds', value: 'N', help: 'measured rounds (default 1)' },
    { long: 'payload', value: 'BYTES', help: 'node data size (default 0)' },
    { long: 'hold', value: 'MS', help: 'time each holder keeps the lock (default 0)' },
    {
      long: 'kind',
      short: 'k',
      value: 'KIND',
      help: 'mutex | read | write | semaphore:N | exclusive (mutex, paths, semaphore)',
    },
    { long: 'naming', value: 'STYLE', help: 'curator (default) | kazoo lock node names (mutex)' },
    {
      long: 'read-percent',
      value: 'PCT',
      help: 'share of reads in the rwlock scenario (default 90)',
    },
    {
      long: 'depth',
      value: 'N',
      help: 'requests in flight per session, pipelined raw (default 32)',
    },
    {
      long: 'processes',
      short: 'p',
      value: 'N',
      help: 'spread the sessions over N processes (default 1)',
    },
    { long: 'root', value: 'PATH', help: 'where to work (default /zkts-bench/<run id>)' },
    { long: 'svg', value: 'FILE', help: 'also write a chart' },
    JSON_OPTION,
  ],
  args: { min: 0, max: 1 },
  interruptible: true,
  notInShell: 'run `zkts bench` from your system shell',
  async run(ctx, { options, positionals }) {
    const runId = newRunId();
    const config = benchConfig(options, positionals, ctx.globals, runId);
    return runBench(ctx, { config, runId, svgFile: options.string('svg') });
  },
};
