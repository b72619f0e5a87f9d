// The README's Quick start as a new user with only Node runs it: Java hidden from PATH (no
// JAVA_HOME, no ZooKeeper, no Docker engine), `npx zkts server` from the installed tarball in the
// background, then the Quick start's JavaScript block, as the README has it but for the port.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort, waitFor } from '../harness/index.js';
import { REPO, runIn } from '../runtimes/processes.js';
import { envWithoutJava } from '../support/no-java.js';

/** The first fenced block of `language` in the README section that starts with `heading`. */
function readmeBlock(heading: string, language: string): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "${heading}" section`);
  const end = readme.indexOf('\n## ', start + heading.length + 2);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section);
  if (!match) throw new Error(`README.md's "${heading}" has no ${language} block`);
  if (!section.includes('npx zkts server &'))
    throw new Error("README.md's Quick start no longer names `npx zkts server &`");
  return match[1]!;
}

/** Runs the step in `project` (the tarball installed); resolves with a summary, throws on failure. */
export async function quickStartWithoutJava(project: string, work: string): Promise<string> {
  const env = envWithoutJava(join(work, 'no-java'));
  const java = await runIn(project, 'sh', ['-c', 'command -v java || echo none'], 10_000, env);
  if (java.stdout.trim() !== 'none') throw new Error(`java is still on PATH: ${java.stdout}`);
  const port = await freePort();
  const server = spawn('npx', ['--no-install', 'zkts', 'server', '--port', String(port)], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: Ctrl-C reaches npx and the server it runs, as in a terminal.
    detached: true,
  });
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-server.pid!, name);
    } catch {
      // The group is gone already.
    }
  };
  let stdout = '';
  let stderr = '';
  server.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<string>((resolve) =>
    server.once('exit', (code, name) => resolve(name ?? `exit code ${code}`)),
  );
  try {
    // It says where it listens (stdout) and that it is not durable (stderr), in either order.
    const address = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`zkts server did not start: ${stdout}${stderr}`)),
        60_000,
      );
      const check = () => {
        const found = /listening on (127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
        if (found && /not durable, not for production/.test(stderr)) {
          clearTimeout(timer);
          resolve(found);
        }
      };
      server.stdout.on('data', check);
      server.stderr.on('data', check);
      void exited.then((how) => reject(new Error(`zkts server ended (${how}): ${stderr}`)));
    });
    const code = readmeBlock('## Quick start', 'js').replaceAll('127.0.0.1:2181', address);
    writeFileSync(join(project, 'quickstart.mjs'), code);
    const run = await runIn(project, 'node', ['quickstart.mjs'], 60_000, env);
    if (run.code !== 0 || run.stderr !== '') throw new Error(run.describe());
    if (!/^holding \/locks\/quickstart\/_c_.+-lock-0+, fencing token \d+$/m.test(run.stdout))
      throw new Error(`the Quick start did not take its lock:\n${run.stdout}`);
    if (
      !run.stdout.includes('read {"level":3}') ||
      !run.stdout.includes('changed: NodeDataChanged')
    )
      throw new Error(`the Quick start did not read and watch:\n${run.stdout}`);
    signal('SIGINT');
    // npx passes Ctrl-C on and ends by it; the server stops and lets its port go.
    const status = await exited;
    if (status !== 'exit code 0' && status !== 'SIGINT')
      throw new Error(`zkts server ended with ${status} on Ctrl-C: ${stderr}`);
    const [host, portText] = address.split(':') as [string, string];
    await waitFor(async () => ((await listening(host, Number(portText))) ? undefined : true), {
      what: `zkts server to let ${address} go`,
      timeoutMs: 10_000,
    });
    return `no java on PATH; zkts server on ${address}; ${run.stdout.trim().split('\n')[0]}`;
  } finally {
    signal('SIGKILL');
  }
}

function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
