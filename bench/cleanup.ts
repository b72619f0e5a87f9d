// Deleting the run's znodes at the end (important on an external ensemble).
import type { Client } from '../src/index.js';

function gone(err: unknown): boolean {
  return (err as { code?: string }).code === 'NONODE';
}

/** Deletes `path` and everything under it; nodes that vanish meanwhile (containers) are fine. */
export async function deleteTree(client: Client, path: string): Promise<void> {
  let children: string[];
  try {
    children = await client.getChildren(path);
  } catch (err) {
    if (gone(err)) return;
    throw err;
  }
  const prefix = path === '/' ? '' : path;
  for (let i = 0; i < children.length; i += 100) {
    await Promise.all(
      children.slice(i, i + 100).map((child) => deleteTree(client, `${prefix}/${child}`)),
    );
  }
  try {
    await client.delete(path);
  } catch (err) {
    if (!gone(err)) throw err;
  }
}
