// LeaderSelector's edges against the scripted client (scripted-client.ts): the errors it names,
// the reason its task's signal carries at close(), a failed step-down reported, participants
// that include kazoo's lock nodes, the loss policy it hands its mutex. Real-server and Curator
// behaviour: test/integration/locks/leader-selector.test.ts.
import { describe, expect, it } from 'vitest';
import { ClosedError } from '../../../src/index.js';
import { LeaderSelector, type LockLostError } from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { ScriptedServer, scriptedSessions } from './scripted-client.js';
import { controlledTask } from './selector-task.js';

describe('LeaderSelector edges (scripted client)', () => {
  it('names the problem in its BADARGUMENTS errors', async () => {
    const client = new ScriptedServer().connect();
    expect(() => new LeaderSelector(client, 's', { task: () => {} })).toThrow(
      'LeaderSelector: invalid path "s"',
    );
    expect(() => new LeaderSelector(client, '/s', { task: 1 as unknown as () => void })).toThrow(
      'task must be a function',
    );
    expect(
      () => new LeaderSelector(client, '/s', { task: () => {}, id: 2 as unknown as string }),
    ).toThrow('id must be a string');
    const selector = new LeaderSelector(client, '/s', { task: () => {}, id: 'ok' });
    await selector.start();
    await selector.start(); // a second start() does nothing
    await selector.close();
    await expect(selector.start()).rejects.toBeInstanceOf(ClosedError);
  });

  it("close() aborts the task's signal with the selector's reason", async () => {
    const server = new ScriptedServer();
    const { terms, task } = controlledTask();
    const selector = new LeaderSelector(server.connect(), '/c', { task });
    selector.start();
    await until(() => terms.length === 1);
    await selector.close();
    expect(terms[0]!.signal.reason).toMatchObject({
      name: 'LeaseReleasedError',
      code: 'LEASERELEASED',
      message: 'leadership of /c was released',
    });
    expect(server.children('/c')).toEqual([]);
  });

  it('a step-down whose delete fails is reported to onError, and the selector stops', async () => {
    const server = new ScriptedServer();
    const errors: unknown[] = [];
    const selector = new LeaderSelector(server.connect(), '/f', { task: () => {} });
    selector.on('error', (error) => errors.push(error));
    server.fail({ op: 'delete', path: /^\/f\//, code: 'NOAUTH' });
    selector.start();
    await selector.done;
    expect(errors).toEqual([expect.objectContaining({ code: 'NOAUTH' })]);
    expect(selector.hasLeadership).toBe(false);
  });

  it('a task that returns while the selector closes is not run again, even with requeue', async () => {
    const server = new ScriptedServer();
    let runs = 0;
    const selector = new LeaderSelector(server.connect(), '/q', {
      task: () => {
        runs++;
        // close() waits for this task to return: not awaited here.
        void selector.close();
      },
      requeue: true,
    });
    selector.start();
    await selector.done;
    expect(runs).toBe(1);
    expect(server.children('/q')).toEqual([]);
    // Nor does it join the line again.
    expect(
      server
        .requests({ op: 'create2' })
        .filter((r) => r.path.startsWith('/q/') && r.outcome === 'ok'),
    ).toHaveLength(1);
  });

  it('participants include a kazoo lock contender, in line', async () => {
    const [server, client] = scriptedSessions(1);
    const { terms, task, end } = controlledTask();
    const selector = new LeaderSelector(client, '/k', { task, id: 'ts' });
    selector.start();
    await until(() => terms.length === 1);
    const kazoo = server.connect();
    await kazoo.create2('/k/0123456789abcdef0123456789abcdef__lock__', 'py', { mode: 3 });
    const participants = await selector.participants();
    expect(participants.map((p) => [p.id, p.isLeader])).toEqual([
      ['ts', true],
      ['py', false],
    ]);
    end();
    await selector.close();
  });

  it("the default loss policy ends a term at a suspension with reason 'suspended'", async () => {
    const [server, client] = scriptedSessions(1);
    const { terms, task } = controlledTask();
    const selector = new LeaderSelector(client, '/p', { task });
    selector.start();
    await until(() => terms.length === 1);
    expect(selector.hasLeadership).toBe(true);
    client.setState('suspended');
    expect((terms[0]!.signal.reason as LockLostError).reason).toBe('suspended');
    expect(selector.hasLeadership).toBe(false);
    client.setState('connected');
    await selector.done;
    expect(server.children('/p')).toEqual([]);
  });
});
