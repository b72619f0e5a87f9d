// The order of a queue as a user sees it through inspectLock (the recipes decide with the same
// order): sequence text for 'interop', creation order across the counter's limit and wrap for
// 'numeric', ties by name. Against the scripted client (scripted-client.ts).
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { inspectLock } from '../../../src/locks/index.js';
import { type ScriptedClient, ScriptedServer } from './scripted-client.js';

/**
 * Creates the named lock nodes under `dir`, in this order (so their czxids ascend). The listing
 * comes back in reverse name order afterwards: a server lists children in no particular order.
 */
async function nodes(client: ScriptedClient, dir: string, names: string[]): Promise<void> {
  const list = client.getChildren.bind(client);
  client.getChildren = (async (...args: Parameters<typeof list>) => {
    const children = await list(...args);
    return listing.reversed ? children.reverse() : children;
  }) as typeof client.getChildren;
  await client.create2(dir, undefined, { mode: CreateMode.PERSISTENT });
  for (const name of names) {
    await client.create2(`${dir}/${name}`, undefined, { mode: CreateMode.EPHEMERAL });
  }
}

/** Whether the next listings come back in reverse name order (else in name order). */
const listing = { reversed: true };

const order = async (client: ScriptedClient, dir: string, sequenceOrder?: 'numeric' | 'interop') =>
  (await inspectLock(client, dir, { sequenceOrder })).contenders.map((c) => c.name);

describe('queue order (inspectLock, scripted client)', () => {
  it("'interop' orders by sequence text, ties by name", async () => {
    const client = new ScriptedServer().connect();
    await nodes(client, '/i', [
      '_c_y-lock-0000000002',
      '_c_z-lock-0000000001',
      '_c_b-lock-2147483647',
      '_c_a-lock-2147483647',
    ]);
    const expected = [
      '_c_z-lock-0000000001',
      '_c_y-lock-0000000002',
      '_c_a-lock-2147483647',
      '_c_b-lock-2147483647',
    ];
    expect(await order(client, '/i', 'interop')).toEqual(expected);
    listing.reversed = false;
    try {
      expect(await order(client, '/i', 'interop')).toEqual(expected);
    } finally {
      listing.reversed = true;
    }
  });

  it("'numeric' below the limit orders by sequence number", async () => {
    const client = new ScriptedServer().connect();
    await nodes(client, '/n', ['_c_y-lock-0000000002', '_c_z-lock-0000000001']);
    expect(await order(client, '/n')).toEqual(['_c_z-lock-0000000001', '_c_y-lock-0000000002']);
  });

  it("'numeric' at the limit orders by creation: the first created leads whatever its name", async () => {
    const client = new ScriptedServer().connect();
    await nodes(client, '/l', ['_c_b-lock-2147483647', '_c_a-lock-2147483647']);
    expect(await order(client, '/l')).toEqual(['_c_b-lock-2147483647', '_c_a-lock-2147483647']);
  });

  it("'numeric' across a wrap (an older server's counter gone negative) orders by creation", async () => {
    const client = new ScriptedServer().connect();
    // Created before the wrap, then after it: no name is at the limit itself.
    await nodes(client, '/w', ['_c_a-lock-2147483646', '_c_b-lock--2147483648']);
    expect(await order(client, '/w')).toEqual(['_c_a-lock-2147483646', '_c_b-lock--2147483648']);
  });
});
