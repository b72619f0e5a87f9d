// Child processes and bundles for the runtime driver (Node only).
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `name` from the repository's node_modules/.bin, else from PATH. */
export function findBinary(name: string): string | null {
  const dirs = [join(REPO, 'node_modules', '.bin'), ...(process.env.PATH ?? '').split(delimiter)];
  for (const dir of dirs) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return null;
}

/** Runs a command in the repository root; kills it (by its pid) after `timeoutMs`. */
export function run(command: string, args: string[], timeoutMs: number): Promise<ProcessResult> {
  return runIn(REPO, command, args, timeoutMs);
}

/** A finished command, with a description for failure messages. */
export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The command, how it ended and the tail of its output, for a failure message. */
  describe(): string;
}

/** Runs a command in `cwd`; kills it (by its pid) after `timeoutMs`. */
export function runIn(
  cwd: string,
  command: string,
  args: string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      stderr += String(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const describe = () => {
        const how = timedOut ? `timed out after ${timeoutMs} ms` : `exit code ${code}`;
        const tail = `${stdout}\n${stderr}`.trim().split('\n').slice(-25).join('\n');
        return `${command} ${args.join(' ')}: ${how}\n${tail}`;
      };
      resolve({ code, stdout, stderr, timedOut, describe });
    });
  });
}

export interface Bundle {
  file: string;
}

/**
 * One ES module for workerd, as a user's bundler would make it (esbuild, neutral platform: no
 * Node built-ins assumed). `external` only for test-only code that never runs there.
 */
export async function bundleFor(
  entry: string,
  outfile: string,
  options: { external?: string[] } = {},
): Promise<Bundle> {
  await build({
    entryPoints: [join(REPO, entry)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    external: options.external ?? [],
    logLevel: 'warning',
  });
  return { file: outfile };
}
