// Child processes for the package test: run in a given directory, killed (by pid) at a deadline.
import { spawn } from 'node:child_process';

export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The command, how it ended and the tail of its output, for a failure message. */
  describe(): string;
}

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
