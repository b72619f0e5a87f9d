// A `zkts bench --processes N` worker: runs its share of the sessions as the coordinator says,
// over the IPC channel, and always closes its sessions (the coordinator removes the nodes after).
import { ZooKeeperError } from '../../index.js';
import { BenchPart } from './part.js';
import type { FromWorker, ToWorker } from './protocol.js';

const stop = new AbortController();
let part: BenchPart | undefined;
let closing: Promise<void> | undefined;
let started = false;

/** Resolves once the message is handed to the channel: a disconnect before that would drop it. */
function send(message: FromWorker): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected || !process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

let connecting: Promise<void> | undefined;

/** Closes the sessions once their connects have settled (each has a bound), then leaves. */
function close(): Promise<void> {
  closing ??= (connecting ?? Promise.resolve())
    .catch(() => {})
    .then(() => part?.close())
    .then(() => {
      if (process.connected) process.disconnect();
    });
  return closing;
}

// Ctrl-C on a terminal reaches the whole process group: the coordinator decides when to stop.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => {});

// The coordinator is gone (crashed, killed): stop and close the sessions.
process.on('disconnect', () => {
  stop.abort(new Error('the coordinator went away'));
  void close();
});

process.on('message', (message: ToWorker) => {
  void handle(message).catch(async (error: unknown) => {
    await send({
      type: 'failed',
      code: error instanceof ZooKeeperError ? error.code : undefined,
      message: error instanceof Error ? error.message : String(error),
    });
    void close();
  });
});

async function handle(message: ToWorker): Promise<void> {
  switch (message.type) {
    case 'init':
      part = new BenchPart(message.config, message.sessions);
      connecting = part.connect(stop.signal);
      await connecting;
      await send({ type: 'ready' });
      return;
    case 'start': {
      if (!part) throw new Error('start before init');
      started = true;
      const current = part;
      const progress = setInterval(() => void send({ type: 'progress', done: current.done }), 200);
      try {
        const result = await current.run(message.start, stop.signal);
        await current.close();
        await send({ type: 'result', result });
      } finally {
        clearInterval(progress);
        await close();
      }
      return;
    }
    case 'stop':
      stop.abort(new Error('interrupted'));
      // Not started: nothing to report, only sessions to close.
      if (!started) await close();
      return;
  }
}
