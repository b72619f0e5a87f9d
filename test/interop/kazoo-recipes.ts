// kazoo's counter and barrier recipes in Python (python/recipe_peer.py), one command per process,
// with the line protocol of Curator's recipe peer.
import { startPythonCommand } from './curator-recipes.js';

/** The commands of python/recipe_peer.py. */
export type KazooRecipeCommand =
  | 'count-increment'
  | 'count-get'
  | 'double-barrier'
  | 'barrier-wait'
  | 'barrier-remove'
  | 'lease'
  | 'multi-lease';

/** Starts `recipe_peer.py <shared server> <command> <path> [arg]`; resolves once connected. */
export function startKazooRecipe(command: KazooRecipeCommand, path: string, ...arg: [] | [string]) {
  return startPythonCommand('recipe_peer.py', command, path, arg);
}
