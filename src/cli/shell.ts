// The interactive shell: one session for many commands, with history and path completion.
import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import type { Client } from '../index.js';
import { COMMANDS, findCommand } from './commands/index.js';
import type { SessionProvider } from './context.js';
import { runCommand } from './dispatch.js';
import { formatError } from './errors.js';
import { commandHelp } from './help.js';
import { hex } from './output.js';
import { childPath } from './tree.js';
import { splitWords } from './words.js';

const BUILTINS = ['help', 'exit', 'quit'] as const;
const HISTORY_SIZE = 1000;
/** Completion must never hang the prompt on a dead connection. */
const COMPLETION_TIMEOUT_MS = 2_000;

/**
 * Completions for the word under the cursor at the end of `line`, as readline wants them:
 * [candidates, the text they replace]. Command names first, then option names, then paths
 * (the children of the typed parent that start with the typed name).
 */
export async function completeLine(
  client: Client | undefined,
  line: string,
): Promise<[string[], string]> {
  const words = line.split(/\s+/);
  const current = words[words.length - 1] ?? '';
  if (words.length <= 1) {
    const names = [...COMMANDS.map((c) => c.name), ...BUILTINS];
    return [names.filter((n) => n.startsWith(current)).sort(), current];
  }
  if (current.startsWith('--')) {
    const options = findCommand(words[0]!)?.options ?? [];
    const names = options.map((o) => `--${o.long}`).filter((n) => n.startsWith(current));
    return [names, current];
  }
  if (!current.startsWith('/') || client === undefined) return [[], current];
  return [await completePath(client, current), current];
}

/** Full paths of the children of `typed`'s parent whose names start with what follows the last `/`. */
export async function completePath(client: Client, typed: string): Promise<string[]> {
  const slash = typed.lastIndexOf('/');
  const parent = slash === 0 ? '/' : typed.slice(0, slash);
  const prefix = typed.slice(slash + 1);
  try {
    const children = await client.getChildren(parent, {
      signal: AbortSignal.timeout(COMPLETION_TIMEOUT_MS),
    });
    return children
      .filter((name) => name.startsWith(prefix))
      .sort()
      .map((name) => childPath(parent, name));
  } catch {
    return [];
  }
}

function historyFile(): string | undefined {
  const configured = process.env.ZKTS_HISTORY;
  if (configured === '') return undefined;
  return configured ?? join(homedir(), '.zkts_history');
}

function loadHistory(file: string | undefined): string[] {
  if (file === undefined) return [];
  try {
    // The file is oldest first; readline wants the newest first.
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).reverse().slice(0, HISTORY_SIZE);
  } catch {
    return [];
  }
}

function saveHistory(file: string | undefined, history: readonly string[]): void {
  if (file === undefined) return;
  try {
    writeFileSync(file, `${[...history].reverse().join('\n')}\n`, { mode: 0o600 });
  } catch {
    // History is a convenience: an unwritable file must not break the shell.
  }
}

function shellHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  return [
    'Commands (each takes --help):',
    ...COMMANDS.filter((c) => !c.notInShell).map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    `  ${'help [COMMAND]'.padEnd(width)}  this help, or a command's`,
    `  ${'exit [STATUS]'.padEnd(width)}  leave (also quit, Ctrl-D)`,
    'Tab completes commands, options and paths. Ctrl-C stops a running watch.',
  ].join('\n');
}

/**
 * Reads commands until `exit` or end of input and runs them on one session. Resolves the status
 * to exit with: `exit N`, else the last command's.
 */
export async function runShell(provider: SessionProvider): Promise<number> {
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const file = interactive ? historyFile() : undefined;
  let running: AbortController | undefined;
  let state = '';
  const rl: Interface = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: interactive,
    history: loadHistory(file),
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
    completer: (line: string, callback: (err: null, result: [string[], string]) => void) => {
      void provider
        .current()
        .then((client) => completeLine(client, line))
        .then((result) => callback(null, result));
    },
  });
  const setPrompt = () => rl.setPrompt(`zkts${state ? ` (${state})` : ''}> `);
  setPrompt();
  rl.on('history', (history: string[]) => saveHistory(file, history));
  const interruptOrClear = () => {
    if (running) running.abort('SIGINT');
    else if (interactive) {
      rl.write('', { ctrl: true, name: 'u' });
      process.stdout.write('\n');
      rl.prompt();
    } else rl.close();
  };
  rl.on('SIGINT', interruptOrClear);
  // Without a terminal readline does not see Ctrl-C; the signal comes to the process instead.
  if (!interactive) process.on('SIGINT', interruptOrClear);
  provider.setListener((client: Client) => {
    client.on('state', (next) => {
      state = next === 'connected' ? '' : next;
      setPrompt();
      if (next === 'expired') {
        process.stderr.write('zkts: session expired; opening a new one\n');
      } else if (next === 'auth-failed') {
        process.stderr.write(`zkts: session ${next}; the next command opens a new one\n`);
      }
    });
    client.on('renewed', ({ previousSessionId, sessionId }) => {
      process.stderr.write(
        `zkts: new session ${hex(sessionId)} (session ${hex(previousSessionId)} expired: its ephemeral nodes are gone)\n`,
      );
    });
  });

  if (interactive) {
    try {
      const client = await provider.client();
      process.stdout.write(
        `Connected to ${client.server}${client.chroot}, session ${hex(client.sessionId)}. ` +
          'Type help for commands.\n',
      );
    } catch (error) {
      process.stderr.write(`${formatError(error, undefined)}\n`);
    }
    rl.prompt();
  }

  let status = 0;
  try {
    for await (const line of rl) {
      const outcome = await runLine(line, provider, (controller) => {
        running = controller;
      });
      running = undefined;
      if (outcome.status !== undefined) status = outcome.status;
      if (outcome.leave) break;
      if (interactive) rl.prompt();
    }
  } finally {
    if (!interactive) process.off('SIGINT', interruptOrClear);
    rl.close();
  }
  return status;
}

async function runLine(
  line: string,
  provider: SessionProvider,
  setRunning: (controller: AbortController) => void,
): Promise<{ status?: number; leave?: boolean }> {
  let words: string[];
  try {
    words = line.trimStart().startsWith('#') ? [] : splitWords(line);
  } catch (error) {
    process.stderr.write(`${formatError(error, undefined)}\n`);
    return { status: 2 };
  }
  const [name, ...args] = words;
  if (name === undefined) return {};
  if (name === 'exit' || name === 'quit') {
    if (args[0] === undefined) return { leave: true };
    const code = Number(args[0]);
    return { status: Number.isInteger(code) && code >= 0 && code <= 255 ? code : 2, leave: true };
  }
  if (name === 'help') {
    const command = args[0] === undefined ? undefined : findCommand(args[0]);
    process.stdout.write(`${command ? commandHelp(command) : shellHelp()}\n`);
    return { status: 0 };
  }
  await provider.renewIfEnded();
  const controller = new AbortController();
  setRunning(controller);
  return {
    status: await runCommand(words, { provider, inShell: true, interrupt: controller.signal }),
  };
}
