// The last step of an unregister: the instance's node is deleted if it is this process's (this
// session's ephemeral node, or a persistent one), whoever created it last. Keeping stopped first,
// but a create sent just before that may land on the server after it and its reply be dropped:
// without this look such a node would stay (for a persistent registration, for good).
import type { RecipeClient } from '../client/recipe-client.js';
import { hasCode } from '../coordination/codes.js';
import { settleWhileConnected } from '../coordination/nodes.js';
import { retry } from '../coordination/retry.js';

/**
 * Deletes `path` when it is this session's ephemeral node or a persistent node. Resolves when
 * done, or as soon as the client is not connected (the deletion then goes on in the background
 * and ends with the session or the client). Never rejects.
 */
export function removeOwnNode(client: RecipeClient, path: string): Promise<void> {
  // The client closed, or the server refused: nothing of this session stays beyond it.
  return settleWhileConnected(client, deleteIfOwn(client, path));
}

async function deleteIfOwn(client: RecipeClient, path: string): Promise<void> {
  const session = client.sessionId;
  for (;;) {
    const stat = await retry(() => client.exists(path));
    // Another session's ephemeral node is another registration (or goes with its session).
    if (stat === null || (stat.ephemeralOwner !== 0n && stat.ephemeralOwner !== session)) return;
    try {
      await retry(() => client.delete(path, stat.version));
      return;
    } catch (error) {
      if (hasCode(error, 'NONODE')) return;
      // Changed between the look and the delete: look again.
      if (!hasCode(error, 'BADVERSION')) throw error;
    }
  }
}
