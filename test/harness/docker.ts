import { DEFAULT_TICK_MS, MAX_SESSION_TIMEOUT_MS, superDigestOf } from './config.js';
import { fourLetterWord, type ServerMode, serverMode } from './four-letter.js';
import { freePort } from './ports.js';
import type { ServerOptions, ZkServer } from './types.js';
import { waitFor } from './wait.js';

const CLIENT_PORT = 2181;

/**
 * A standalone server in a container of the official image. The host port is fixed at creation, so
 * `stop()`/`kill()` followed by `start()` keeps the connect string and (the container's) data.
 * Not exercised where the harness was written (no Docker engine there); kept deliberately small.
 */
export async function startDockerStandalone(image: string, opts: ServerOptions): Promise<ZkServer> {
  // Loaded lazily: testcontainers is heavy and only needed on this path.
  const { GenericContainer, getContainerRuntimeClient } = await import('testcontainers');
  const tick = opts.tickTime ?? DEFAULT_TICK_MS;
  const hostPort = opts.clientPort ?? (await freePort());
  const log = new LogTail();
  const extra = {
    minSessionTimeout: String(2 * tick),
    maxSessionTimeout: String(MAX_SESSION_TIMEOUT_MS),
    ...opts.extraConfig,
  };
  const jvmFlags = [
    '-Dzookeeper.extendedTypesEnabled=true',
    '-Dzookeeper.forceSync=no',
    ...(opts.jvmFlags ?? []),
  ];
  if (opts.superDigest)
    jvmFlags.push(
      `-Dzookeeper.DigestAuthenticationProvider.superDigest=${superDigestOf(opts.superDigest)}`,
    );
  const started = await new GenericContainer(image)
    .withExposedPorts({ container: CLIENT_PORT, host: hostPort })
    .withEnvironment({
      ZOO_TICK_TIME: String(tick),
      ZOO_MAX_CLIENT_CNXNS: '0',
      ZOO_4LW_COMMANDS_WHITELIST: '*',
      ZOO_ADMINSERVER_ENABLED: 'false',
      ZOO_CFG_EXTRA: Object.entries(extra)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
      JVMFLAGS: jvmFlags.join(' '),
    })
    .withLogConsumer((stream) =>
      stream.on('data', (chunk: Buffer | string) => log.append(String(chunk))),
    )
    .withStartupTimeout(opts.startTimeoutMs ?? 120_000)
    .start();
  const host = started.getHost();
  const container = (await getContainerRuntimeClient()).container.getById(started.getId());
  let running = true;
  const waitServing = () =>
    waitFor(async () => ((await serverMode(host, hostPort)) === 'standalone' ? true : undefined), {
      what: `ZooKeeper in container ${started.getId().slice(0, 12)} to serve on ${host}:${hostPort}`,
      timeoutMs: opts.startTimeoutMs ?? 60_000,
    });
  await waitServing();
  const server: ZkServer = {
    connectString: `${host}:${hostPort}`,
    host,
    port: hostPort,
    ...(opts.superDigest ? { superAuth: opts.superDigest } : {}),
    get running() {
      return running;
    },
    fourLetter: (cmd) => fourLetterWord(host, hostPort, cmd),
    mode: (): Promise<ServerMode | undefined> => serverMode(host, hostPort),
    async stop() {
      await container.stop({ t: 5 });
      running = false;
    },
    async kill() {
      await container.kill({ signal: 'SIGKILL' });
      running = false;
    },
    async start() {
      await container.start();
      running = true;
      await waitServing();
    },
    logTail: (n = 60) => log.tail(n),
    async close() {
      await started.stop({ remove: true, timeout: 1000 });
      running = false;
    },
    [Symbol.asyncDispose]() {
      return server.close();
    },
  };
  return server;
}

/** The last few hundred lines of a container's output. */
class LogTail {
  private lines: string[] = [];
  private partial = '';

  append(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    this.lines.push(...parts);
    if (this.lines.length > 500) this.lines = this.lines.slice(-300);
  }

  tail(n: number): string {
    return [...this.lines, this.partial].slice(-n).join('\n');
  }
}
