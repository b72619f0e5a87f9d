// kazoo's counter and barrier recipes in Python (python/recipe_peer.py), one command per process,
// with the line protocol of Curator's recipe peer.
import { fileURLToPath } from 'node:url';
import { type CuratorRecipeRun, startRecipeProcess } from './curator-recipes.js';
import { PYTHON, requireKazoo } from './kazoo.js';

const SCRIPT = fileURLToPath(new URL('./python/recipe_peer.py', import.meta.url));

/** The commands of python/recipe_peer.py. */
export type KazooRecipeCommand =
  | 'count-increment'
  | 'count-get'
  | 'double-barrier'
  | 'barrier-wait'
  | 'barrier-remove'
  | 'lease'
  | 'multi-lease';

/** Starts `recipe_peer.py <connect> <command> <path> [arg]` and waits for it to connect. */
export function startKazooRecipe(
  connectString: string,
  command: KazooRecipeCommand,
  path: string,
  arg?: string,
): Promise<CuratorRecipeRun> {
  requireKazoo();
  const args = ['-u', SCRIPT, connectString, command, path];
  if (arg !== undefined) args.push(arg);
  return startRecipeProcess(`kazoo ${command}`, PYTHON, args);
}
