// srvr, mntr, 4lw WORD: ask every server of the connect string directly (no session needed).

import type { CommandContext } from '../context.js';
import { exitCodeFor, formatError, UsageError } from '../errors.js';
import { fourLetterWord, parseColonLines, parseTabLines, serversOf } from '../four-letter.js';
import { type Command, JSON_OPTION } from './types.js';

/** The words ZooKeeper 3.5 to 3.9 answer (the server's FourLetterCommands). */
const KNOWN_WORDS = [
  'conf',
  'cons',
  'crst',
  'dirs',
  'dump',
  'envi',
  'gtmk',
  'hash',
  'isro',
  'mntr',
  'ruok',
  'srst',
  'srvr',
  'stat',
  'stmk',
  'wchc',
  'wchp',
  'wchs',
];

type Parser = (text: string) => Record<string, string | number>;

async function ask(ctx: CommandContext, word: string, parse: Parser | undefined): Promise<number> {
  const servers = serversOf(ctx.globals.servers);
  const answers = await Promise.allSettled(
    servers.map((server) => fourLetterWord(server, word, ctx.globals.timeout)),
  );
  let status = 0;
  const results = answers.map((answer, i) => {
    const server = servers[i]!.label;
    if (answer.status === 'fulfilled') {
      return parse ? { server, fields: parse(answer.value) } : { server, text: answer.value };
    }
    process.stderr.write(`${formatError(answer.reason, word)}\n`);
    status = Math.max(status, exitCodeFor(answer.reason));
    return { server, error: (answer.reason as Error).message };
  });
  if (ctx.out.json) {
    ctx.out.emit(results);
    return status;
  }
  answers.forEach((answer, i) => {
    if (answer.status !== 'fulfilled') return;
    if (servers.length > 1) ctx.out.line(ctx.out.bold(`${servers[i]!.label}:`));
    ctx.out.line(answer.value.replace(/\n+$/, ''));
  });
  return status;
}

const common = {
  options: [JSON_OPTION],
  sessionless: true,
  details:
    'Sent to every server of --server on a plain TCP connection; servers must allow the word\n' +
    '(4lw.commands.whitelist). Exit status 69 if a server cannot be reached.',
} as const;

/** A command named after the word it sends, whose answer `parse` reads into fields for --json. */
function wordCommand(word: string, summary: string, parse: Parser): Command {
  return {
    ...common,
    name: word,
    usage: word,
    summary,
    args: { min: 0, max: 0 },
    run: (ctx) => ask(ctx, word, parse),
  };
}

export const srvr = wordCommand(
  'srvr',
  'server status of every server (mode, version, latency, zxid)',
  parseColonLines,
);

export const mntr = wordCommand('mntr', 'monitoring variables of every server', parseTabLines);

export const fourLetter: Command = {
  ...common,
  name: '4lw',
  usage: '4lw WORD',
  summary: 'any four-letter word (ruok, conf, cons, envi, wchs, ...)',
  args: { min: 1, max: 1 },
  run: (ctx, { positionals }) => {
    const word = positionals[0]!;
    if (!/^[a-z]{4}$/.test(word)) throw new UsageError(`not a four-letter word: "${word}"`);
    // A server answers a word it does not know with nothing at all: say so instead.
    if (!KNOWN_WORDS.includes(word)) {
      throw new UsageError(`unknown four-letter word "${word}"; known: ${KNOWN_WORDS.join(' ')}`);
    }
    return ask(ctx, word, undefined);
  },
};
