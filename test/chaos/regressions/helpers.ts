// Shared by the regression tests: clients on the shared server, closed after each test.
import { afterEach } from 'vitest';
import { type Client, connect, ZooKeeperError } from '../../../src/index.js';
import { fourLetterWord, sharedServer } from '../../harness/index.js';

const opened: Client[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.close()));
});

export async function client(): Promise<Client> {
  const zk = await connect(sharedServer().connectString, { sessionTimeout: 10_000 });
  opened.push(zk);
  return zk;
}

/** What `call` ended with: its value, the error it threw or rejected with, or 'pending' after `ms`. */
export async function outcome(call: () => unknown, ms = 3_000): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      (async () => call())().catch((error: unknown) => error),
      new Promise((resolve) => {
        timer = setTimeout(() => resolve('pending'), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function expectCode(value: unknown, code: string): void {
  if (!(value instanceof ZooKeeperError) || value.code !== code) {
    throw new Error(
      `expected a ZooKeeperError ${code}, got ${value instanceof Error ? `${value.name}: ${value.message}` : String(value)}`,
    );
  }
}

/** Session ids (hex) holding a data or persistent watch on `path`, from the shared server's `wchp`. */
export async function watchersOf(path: string): Promise<string[]> {
  const [host, port] = sharedServer().connectString.split(',')[0]!.split(':') as [string, string];
  const text = await fourLetterWord(host, Number(port), 'wchp');
  const out: string[] = [];
  let current: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('/')) current = line;
    else if (current === path && line.startsWith('0x')) out.push(line);
  }
  return out;
}
