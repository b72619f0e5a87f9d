// LeaderSelector against the scripted client (scripted-client.ts): terms, stepping down, requeue,
// errors reported and never thrown, close. Real-server and Curator behaviour:
// test/integration/locks/leader-selector.test.ts.
// Also: the errors it names, the reason its task's signal carries at close(), a failed step-down
// reported, participants that include kazoo's lock nodes, the loss policy it hands its mutex.
import { describe, expect, it } from 'vitest';
import { ClosedError, InvalidArgumentError } from '../../../src/index.js';
import { LeaderSelector, LockLostError } from '../../../src/locks/index.js';
import { until } from '../../support/wait.js';
import { ScriptedServer, scriptedSessions } from './scripted-client.js';
import { controlledTask } from './selector-task.js';

describe('LeaderSelector (scripted client)', () => {
  it('refuses a task that is not a function, an id that is not a string, and a second start', async () => {
    const client = new ScriptedServer().connect();
    const badArgs = expect.objectContaining({ code: 'BADARGUMENTS' });
    expect(() => new LeaderSelector(client, '/s', { task: 'x' as unknown as () => void })).toThrow(
      badArgs,
    );
    expect(
      () => new LeaderSelector(client, '/s', { task: () => {}, id: 5 as unknown as string }),
    ).toThrow(badArgs);
    const selector = new LeaderSelector(client, '/s', { task: () => {} });
    await selector.done; // not started: done at once
    await selector.start();
    await selector.start(); // a second start() does nothing
    const closing = selector.close();
    expect(selector.close()).toBe(closing); // idempotent: one promise
    await closing;
    await expect(selector.start()).rejects.toBeInstanceOf(ClosedError);
    const closedFirst = new LeaderSelector(client, '/s2', { task: () => {} });
    await closedFirst.close();
    await expect(closedFirst.start()).rejects.toBeInstanceOf(ClosedError);
  });

  it('runs the task as leader with its term, steps down when it returns, and stops after one term', async () => {
    const [server, client] = scriptedSessions(1);
    const { terms, task, end } = controlledTask();
    const selector = new LeaderSelector(client, '/one', { task: task, id: 'me' });
    expect(selector.hasLeadership).toBe(false);
    selector.start();
    await until(() => terms.length === 1, 'the term');
    const [term] = terms;
    expect(term!.id).toBe('me');
    expect(server.children('/one')).toEqual([term!.path.slice('/one/'.length)]);
    expect(term!.fencingToken).toBe(server.nodes.get(term!.path)!.stat.czxid);
    expect(new TextDecoder().decode(server.nodes.get(term!.path)!.data)).toBe('me');
    expect(selector.hasLeadership).toBe(true);
    const [leader] = await selector.participants();
    expect(leader).toMatchObject({ id: 'me', isLeader: true });
    end();
    await selector.done;
    expect(selector.hasLeadership).toBe(false);
    expect(server.children('/one')).toEqual([]);
    expect(term!.signal.aborted).toBe(true);
    expect(terms).toHaveLength(1);
  });

  it('the id defaults to the empty string', async () => {
    const server = new ScriptedServer();
    const { terms, task, end } = controlledTask();
    const selector = new LeaderSelector(server.connect(), '/d', { task: task });
    selector.start();
    await until(() => terms.length === 1);
    expect(terms[0]!.id).toBe('');
    end();
    await selector.close();
  });

  it('two selectors take turns; with requeue a selector leads again after the other', async () => {
    const [server, a, b] = scriptedSessions(2);
    const order: string[] = [];
    const task = (name: string) => async () => {
      order.push(name);
      await new Promise((r) => setTimeout(r, 2));
    };
    const first = new LeaderSelector(a, '/turns', { task: task('a'), requeue: true });
    const second = new LeaderSelector(b, '/turns', { task: task('b') });
    first.start();
    await until(() => order.length >= 1);
    second.start();
    await until(() => order.includes('b') && order.lastIndexOf('a') > order.indexOf('b'));
    await second.done;
    await first.close();
    expect(server.children('/turns')).toEqual([]);
    expect(order.filter((n) => n === 'b')).toHaveLength(1);
  });

  it('close() aborts a running task, waits for it to return, then leaves', async () => {
    const [server, client] = scriptedSessions(1);
    let returned = false;
    const selector = new LeaderSelector(client, '/c', {
      task: async (leadership) => {
        await new Promise((resolve) =>
          leadership.signal.addEventListener('abort', resolve, { once: true }),
        );
        await new Promise((r) => setTimeout(r, 5));
        returned = true;
      },
    });
    selector.start();
    await until(() => selector.hasLeadership);
    await selector.close();
    expect(returned).toBe(true);
    expect(server.children('/c')).toEqual([]);
    expect(selector.hasLeadership).toBe(false);
  });

  it('close() while waiting in line removes the node and reports nothing', async () => {
    const [server, a, b] = scriptedSessions(2);
    const errors: unknown[] = [];
    const holder = controlledTask();
    const first = new LeaderSelector(a, '/w', { task: holder.task });
    first.start();
    await until(() => holder.terms.length === 1);
    const second = new LeaderSelector(b, '/w', { task: () => {} });
    second.on('error', (e) => errors.push(e));
    second.start();
    await until(() => server.children('/w').length === 2);
    await second.close();
    expect(server.children('/w')).toHaveLength(1);
    expect(errors).toEqual([]);
    holder.end();
    await first.close();
  });

  it('a task that throws is reported to onError (a throwing handler too), and the node goes', async () => {
    const [server, client] = scriptedSessions(1);
    const errors: unknown[] = [];
    const selector = new LeaderSelector(client, '/t', {
      task: () => {
        throw new Error('task failed');
      },
    });
    selector.on('error', (error) => {
      errors.push(error);
      throw new Error('handler failed');
    });
    selector.start();
    await selector.done;
    expect(errors).toEqual([new Error('task failed')]);
    expect(server.children('/t')).toEqual([]);
  });

  it("a task that throws its signal's reason after the loss is not reported; another error is", async () => {
    const [, client] = scriptedSessions(1);
    const errors: unknown[] = [];
    const selector = new LeaderSelector(client, '/l', {
      task: async (leadership) => {
        await new Promise((resolve) =>
          leadership.signal.addEventListener('abort', resolve, { once: true }),
        );
        throw leadership.signal.reason;
      },

      lossPolicy: 'suspended',
    });
    selector.on('error', (e) => errors.push(e));
    selector.start();
    await until(() => selector.hasLeadership);
    client.setState('suspended');
    expect(selector.hasLeadership).toBe(false);
    client.setState('connected');
    await selector.done;
    expect(errors).toEqual([]);

    const other = new LeaderSelector(client, '/l2', {
      task: async (leadership) => {
        await new Promise((resolve) =>
          leadership.signal.addEventListener('abort', resolve, { once: true }),
        );
        throw new Error('cleanup failed');
      },

      lossPolicy: 'suspended',
    });
    other.on('error', (e) => errors.push(e));
    other.start();
    await until(() => other.hasLeadership);
    client.setState('suspended');
    client.setState('connected');
    await other.done;
    expect(errors).toEqual([new Error('cleanup failed')]);
  });

  it("lossPolicy 'expired' keeps leadership through a suspension; the default ends it", async () => {
    const [, client] = scriptedSessions(1);
    const { terms, task, end } = controlledTask();
    const selector = new LeaderSelector(client, '/k', { task: task, lossPolicy: 'expired' });
    selector.start();
    await until(() => terms.length === 1);
    client.setState('suspended');
    client.setState('connected');
    expect(terms[0]!.signal.aborted).toBe(false);
    expect(selector.hasLeadership).toBe(true);
    end();
    await selector.close();
    const byDefault = controlledTask();
    const other = new LeaderSelector(client, '/k2', { task: byDefault.task });
    other.start();
    await until(() => byDefault.terms.length === 1);
    client.setState('suspended');
    expect(byDefault.terms[0]!.signal.aborted).toBe(true);
    client.setState('connected');
    await other.close();
  });

  it('an election that fails (the session is over) is reported and ends the selector', async () => {
    const [server, a, b] = scriptedSessions(2);
    const holder = controlledTask();
    const first = new LeaderSelector(a, '/e', { task: holder.task });
    first.start();
    await until(() => holder.terms.length === 1);
    const errors: unknown[] = [];
    const second = new LeaderSelector(b, '/e', { task: () => {} });
    second.on('error', (e) => errors.push(e));
    second.start();
    await until(() => server.children('/e').length === 2);
    b.setState('closed');
    await second.done;
    expect(errors).toHaveLength(1);
    holder.end();
    await first.close();
  });

  it('a leader whose session expires ends its term with a loss', async () => {
    const [, client] = scriptedSessions(1);
    const { terms, task } = controlledTask();
    const selector = new LeaderSelector(client, '/x', { task: task });
    selector.on('error', () => {});
    selector.start();
    await until(() => terms.length === 1);
    client.setState('expired');
    await selector.done;
    expect(terms[0]!.signal.reason).toBeInstanceOf(LockLostError);
  });

  it('start() takes { timeout, signal }: an aborted signal rejects with its reason, a bad timeout is refused', async () => {
    const server = new ScriptedServer();
    const { terms, task } = controlledTask();
    const selector = new LeaderSelector(server.connect(), '/opts', { task });
    const reason = new Error('caller gave up');
    await expect(selector.start({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    // Started all the same (the election runs in the background): close() it.
    await until(() => terms.length === 1, 'the term');
    await expect(selector.start({ timeout: -1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await selector.start({ timeout: 1_000 });
    await selector.close();
  });

  it('await using closes the selector', async () => {
    const [server, client] = scriptedSessions(1);
    const { terms, task } = controlledTask();
    {
      await using selector = new LeaderSelector(client, '/u', { task: task });
      selector.start();
      await until(() => terms.length === 1);
    }
    expect(terms[0]!.signal.aborted).toBe(true);
    expect(server.children('/u')).toEqual([]);
  });
});

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
