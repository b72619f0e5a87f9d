// kazoo's counter and barrier recipes in Python (python/recipe_peer.py), one command per process,
// with the line protocol of Curator's recipe peer.
import { sharedServer } from '../harness/index.js';
import { type CuratorRecipeRun, startRecipeProcess } from './curator-recipes.js';
import { PYTHON, pythonArgs } from './kazoo.js';

/** The commands of python/recipe_peer.py. */
export type KazooRecipeCommand =
  | 'count-increment'
  | 'count-get'
  | 'double-barrier'
  | 'barrier-wait'
  | 'barrier-remove'
  | 'lease'
  | 'multi-lease';

/** Starts `recipe_peer.py <shared server> <command> <path> [arg]` and waits for it to connect. */
export function startKazooRecipe(
  command: KazooRecipeCommand,
  path: string,
  ...arg: [] | [string]
): Promise<CuratorRecipeRun> {
  const args = pythonArgs('recipe_peer.py', sharedServer().connectString, command, path, ...arg);
  return startRecipeProcess(`kazoo ${command}`, PYTHON, args);
}
