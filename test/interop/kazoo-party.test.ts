// Group membership against kazoo's Party and ShallowParty (python3-kazoo, python/party_peer.py) on
// the same path, both ways: kazoo's member is in our members with its identifier, ours is in
// kazoo's iteration and len(); each side sees the other leave. A missing kazoo fails (never skips).
import { describe, expect, it } from 'vitest';
import { GroupMember, type Member } from '../../src/recipes/index.js';
import { uniquePath } from '../harness/index.js';
import { connectString, newClient } from './helpers.js';
import { startKazooParty } from './kazoo.js';
import { askJson, tell, within } from './peer.js';

const ids = (members: readonly Member[]) => members.map(({ id }) => id).sort();

async function nextMembers(changes: AsyncIterator<readonly Member[]>): Promise<string[]> {
  const result = await within(changes.next(), 15_000, 'the next membership change');
  if (result.done) throw new Error('the stream ended');
  return ids(result.value);
}

describe('GroupMember with kazoo', () => {
  for (const [kind, layout] of [
    ['party', 'kazoo'],
    ['shallow', 'kazoo-shallow'],
  ] as const) {
    it(`shares a ${kind === 'party' ? 'Party' : 'ShallowParty'} with kazoo both ways`, async () => {
      const path = `${uniquePath('interop')}/party`;
      const [kazoo, zk] = await Promise.all([
        startKazooParty(connectString(), path, kind, 'py-1'),
        newClient(),
      ]);
      await tell(kazoo, 'join', 'joined');
      const member = new GroupMember(zk, path, { id: 'ts-1', layout });
      try {
        await member.start({ timeout: 10_000 });
        expect(ids(member.members)).toEqual(['py-1', 'ts-1']);
        expect(await askJson(kazoo, 'members')).toEqual(['py-1', 'ts-1']);
        expect(await askJson(kazoo, 'count')).toBe(2);

        const changes = member.events();
        await tell(kazoo, 'leave', 'left');
        expect(await nextMembers(changes)).toEqual(['ts-1']);
        await tell(kazoo, 'join', 'joined');
        expect(await nextMembers(changes)).toEqual(['py-1', 'ts-1']);
      } finally {
        await member.close();
      }
      expect(await askJson(kazoo, 'members')).toEqual(['py-1']);
    });
  }
});
