// Node data in and out: command-line text, stdin bytes, UTF-8 checks.
import type { CommandContext } from './context.js';
import { UsageError } from './errors.js';

/** DATA as given: `-` reads stdin to the end (bytes kept as they are), anything else is UTF-8 text. */
export async function readDataArgument(
  ctx: CommandContext,
  text: string | undefined,
): Promise<Uint8Array | string> {
  if (text !== '-') return text ?? '';
  if (ctx.inShell) throw new UsageError('DATA "-" (stdin) is not available in the shell');
  const chunks: Uint8Array[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Uint8Array);
  return Buffer.concat(chunks);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The text, or undefined when the bytes are not valid UTF-8. */
export function utf8OrUndefined(data: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(data);
  } catch {
    return undefined;
  }
}

export function toHex(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('hex');
}

export function toBase64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}
