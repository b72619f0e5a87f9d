// Making parents is written once (src/coordination/paths.ts): the public helpers and the lock
// engine share the code and what it learns of a server, so a server found without CONTAINER
// nodes is asked for one only once per client, whichever of them asked first.
import { describe, expect, it } from 'vitest';
import type { RecipeClient } from '../../../src/client/recipe-client.js';
import type { CreateOptions } from '../../../src/client/types.js';
import { CreateMode } from '../../../src/client/types.js';
import { createWithParents, hasNoContainers } from '../../../src/coordination/paths.js';
import { makeError } from '../../../src/protocol/errors.js';
import { ensurePath } from '../../../src/recipes/paths.js';

/** A server before 3.5.3: no CONTAINER nodes; records every create with its mode. */
function oldServer() {
  const nodes = new Set<string>(['/']);
  const creates: { path: string; mode: number | undefined }[] = [];
  const client = {
    async create2(path: string, _data: unknown, options: CreateOptions = {}) {
      creates.push({ path, mode: options.mode });
      if (options.mode === CreateMode.CONTAINER) throw makeError('UNIMPLEMENTED', 'no containers');
      if (nodes.has(path)) throw makeError('NODEEXISTS', path);
      const parent = path.slice(0, path.lastIndexOf('/')) || '/';
      if (!nodes.has(parent)) throw makeError('NONODE', path);
      nodes.add(path);
      return { path, stat: {} as never };
    },
  } as unknown as RecipeClient;
  return { client, nodes, creates };
}

describe('one ensurePath, one cache of "this server has no containers"', () => {
  it('what the public ensurePath learns, the lock engine’s createWithParents knows', async () => {
    const server = oldServer();
    await ensurePath(server.client, '/app/one');
    expect(hasNoContainers(server.client)).toBe(true);
    const refused = server.creates.filter((c) => c.mode === CreateMode.CONTAINER).length;
    expect(refused).toBe(1);
    // The lock engine makes the parents of its node: persistent from the start, no second refusal.
    await createWithParents(server.client, '/app/locks/m/node', undefined, {
      mode: CreateMode.EPHEMERAL,
    });
    expect(server.nodes.has('/app/locks/m/node')).toBe(true);
    expect(server.creates.filter((c) => c.mode === CreateMode.CONTAINER).length).toBe(refused);
  });

  it('a fresh client is asked for containers again (the cache is per client)', async () => {
    const first = oldServer();
    await ensurePath(first.client, '/a');
    const second = oldServer();
    expect(hasNoContainers(second.client)).toBe(false);
    await createWithParents(second.client, '/b/c', undefined, { mode: CreateMode.PERSISTENT });
    expect(second.creates.some((c) => c.mode === CreateMode.CONTAINER)).toBe(true);
    expect(hasNoContainers(second.client)).toBe(true);
  });
});
