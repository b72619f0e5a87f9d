// Group membership against Curator's GroupMember (5.x, in a JVM: java/DiscoveryPeer.java) on the
// same path, both ways: each sees the other's id and data, each other's data changes, and each
// other leaving. A missing Curator or JDK fails (never skips).
import { describe, expect, it } from 'vitest';
import { GroupMember, type Member } from '../../src/recipes/index.js';
import { uniquePath } from '../harness/index.js';
import { eventually } from '../support/events.js';
import { startDiscoveryPeer } from './curator-discovery.js';
import { connectString, newClient } from './helpers.js';
import { askJson, tell } from './peer.js';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const view = (members: readonly Member[]) =>
  Object.fromEntries(members.map(({ id, data }) => [id, text(data)]));

describe('GroupMember with Curator', () => {
  it('shares a group with Curator’s GroupMember both ways', async () => {
    const path = `${uniquePath('interop')}/group`;
    const [curator, zk] = await Promise.all([
      startDiscoveryPeer(connectString(), `${path}-discovery`),
      newClient(),
    ]);
    await tell(curator, `join ${path} java-1 from-java`, 'joined');
    const member = new GroupMember(zk, path, { id: 'ts-1', data: 'from-ts' });
    try {
      await member.start({ timeout: 10_000 });
      expect(view(member.members)).toEqual({ 'java-1': 'from-java', 'ts-1': 'from-ts' });
      await eventually(async () =>
        expect(await askJson(curator, 'members')).toEqual({
          'java-1': 'from-java',
          'ts-1': 'from-ts',
        }),
      );

      await member.setData('ts-updated');
      await eventually(async () =>
        expect(await askJson(curator, 'members')).toMatchObject({ 'ts-1': 'ts-updated' }),
      );
      await tell(curator, 'setdata java-updated', 'set');
      await eventually(() => expect(view(member.members)['java-1']).toBe('java-updated'));

      await tell(curator, 'leave', 'left');
      await eventually(() => expect(view(member.members)).toEqual({ 'ts-1': 'ts-updated' }));
      await tell(curator, `join ${path} java-2 again`, 'joined');
      await eventually(() =>
        expect(Object.keys(view(member.members)).sort()).toEqual(['java-2', 'ts-1']),
      );
    } finally {
      await member.close();
    }
    await eventually(async () =>
      expect(await askJson(curator, 'members')).toEqual({ 'java-2': 'again' }),
    );
  });
});
