// zkts server: the in-process ZooKeeper on a port, reached by a real client and by zkts itself,
// marked as not durable, and stopped by Ctrl-C with exit status 0.
import { describe, expect, it } from 'vitest';
import { connect } from '../../../src/index.js';
import { runCli, startCli } from './helpers.js';

describe('zkts server', () => {
  it('serves on a port until interrupted, says it is not durable, and zkts and the library can use it', async () => {
    const server = await startCli(['server', '--port', '0']);
    await server.waitForStdout(/listening on 127\.0\.0\.1:\d+/);
    await server.waitForStderr(/not durable, not for production/);
    const address = /listening on (127\.0\.0\.1:\d+)/.exec(server.stdout)![1]!;

    const created = await runCli(['create', '/from-cli', 'hello'], { servers: address });
    expect(created.code, created.stderr).toBe(0);
    const zk = await connect(address);
    try {
      const { data } = await zk.getData('/from-cli');
      expect(new TextDecoder().decode(data)).toBe('hello');
    } finally {
      await zk.close();
    }

    server.child.kill('SIGINT');
    const end = await server.done;
    expect(end.code).toBe(0);
  });

  it('--json prints the connect string and durable: false', async () => {
    const server = await startCli(['server', '--port', '0', '--members', '3', '--json']);
    await server.waitForStdout(/connectString/);
    const line = JSON.parse(server.stdout.trim().split('\n')[0]!) as {
      connectString: string;
      durable: boolean;
    };
    expect(line.durable).toBe(false);
    expect(line.connectString.split(',')).toHaveLength(3);
    server.child.kill('SIGTERM');
    expect((await server.done).code).toBe(0);
  });
});
