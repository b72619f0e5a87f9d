// workerd for the runtime driver: the smoke-suite config, and starting/stopping the server.
import { type ChildProcess, spawn } from 'node:child_process';
import { connect as tcpConnect } from 'node:net';
import { basename } from 'node:path';
import { REPO } from './processes.js';

/** A capnp text literal (same escapes as JSON for what PEM and paths contain). */
const text = (value: string) => JSON.stringify(value);

/**
 * The smoke worker's config: loopback allowed (workerd, like Cloudflare, refuses private and
 * local addresses by default), the test CA trusted for `secureTransport: "on"`, and no
 * compatibility flags, so the bundle must not need nodejs_compat.
 */
export function workerdSmokeConfig(options: {
  bundle: string;
  port: number;
  trustedCa: string;
}): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .smoke),
    (name = "internet", network = (
      allow = ["public", "local"],
      tlsOptions = (trustedCertificates = [${text(options.trustedCa)}]),
    )),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${options.port}", http = (), service = "main")],
);
const smoke :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed ${text(basename(options.bundle))})],
  compatibilityDate = "2025-09-01",
);
`;
}

export interface RunningWorkerd {
  /** Stops the server (SIGTERM, by pid) and returns its log. */
  stop(): Promise<string>;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts `workerd serve config` and waits until every port answers HTTP. */
export async function startWorkerd(
  binary: string,
  configFile: string,
  ports: number[],
): Promise<RunningWorkerd> {
  const child: ChildProcess = spawn(binary, ['serve', configFile], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    log += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    log += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    return log;
  };
  const deadline = Date.now() + 20_000;
  for (const port of ports) {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`workerd exited: ${log}`);
      // A bare TCP connect: an HTTP probe would run the worker (and open ZooKeeper sessions).
      if (await listening(port)) break;
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`workerd did not serve port ${port}: ${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { stop };
}
