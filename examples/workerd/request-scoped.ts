// A plain Cloudflare Worker. Its sockets belong to the request that opened them and close when
// the response is sent, so a session lives inside one request: connect, work, close. A session
// that must outlive the request (its ephemeral nodes, say) is resumed by a later request from its
// id and password, within the session timeout.
// In your project: import { connect } from 'zookeeper-ts' (the transport is picked for workerd).
import { CreateMode, connect } from '../../src/index.js';

interface Env {
  /** `host:port[,host:port...]`. On Cloudflare: public, non-Cloudflare addresses only. */
  ZK_CONNECT: string;
}

const hex = (bytes: Uint8Array) =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const unhex = (text: string) => Uint8Array.from(text.match(/../g) ?? [], (b) => parseInt(b, 16));

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);

    if (url.pathname === '/children') {
      // The common case: one short session per request.
      const zk = await connect(env.ZK_CONNECT, { sessionTimeout: 10_000 });
      try {
        return Response.json({
          children: await zk.getChildren(url.searchParams.get('path') ?? '/'),
        });
      } finally {
        await zk.close();
      }
    }

    if (url.pathname === '/begin') {
      // Not closed on purpose: the server keeps the session, and its ephemeral node, for its
      // timeout after this request's socket is gone.
      const zk = await connect(env.ZK_CONNECT, { sessionTimeout: 10_000 });
      const node = await zk.create(`/worker-${crypto.randomUUID()}`, 'alive', {
        mode: CreateMode.EPHEMERAL,
      });
      // Demo only: real code keeps the password server-side (Durable Object storage, KV).
      return Response.json({
        id: zk.sessionId.toString(16),
        password: hex(zk.sessionPassword),
        node,
        timeout: zk.sessionTimeout,
      });
    }

    if (url.pathname === '/resume') {
      const id = BigInt(`0x${url.searchParams.get('id') ?? '0'}`);
      const password = unhex(url.searchParams.get('password') ?? '');
      const node = url.searchParams.get('node') ?? '/';
      const zk = await connect(env.ZK_CONNECT, { session: { id, password } });
      try {
        const stat = await zk.exists(node);
        return Response.json({
          resumed: zk.sessionId === id,
          nodeStillOurs: stat?.ephemeralOwner === id,
        });
      } finally {
        await zk.close(); // ends the session for good: its ephemeral node goes now
      }
    }

    return new Response('try /children, /begin, /resume?id=&password=&node=\n', { status: 404 });
  },
};
