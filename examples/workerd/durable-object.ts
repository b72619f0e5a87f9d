// A Durable Object keeps one ZooKeeper session, and the locks it holds, across requests: its
// socket and the session's ping timer are not tied to a request. Route by name to one object
// per lock holder. If the session expires (a partition longer than the session timeout), the same
// client opens a new one by itself (`renewSession`, on by default): a lock held then is lost (its
// signal aborted) and the next `/acquire` takes it again on the new session. Eviction (no
// requests for ~70-140 s, or a deploy) closes the socket; the next request then starts a new
// session, and a lock held by the old one is gone once it expires.
// In your project: 'zookeeper-ts' and 'zookeeper-ts/locks'.
import { type Client, connect } from '../../src/index.js';
import { type Lease, LockTimeoutError, Mutex } from '../../src/locks/index.js';

// The slice of the Workers types this example uses (@cloudflare/workers-types has them all).
type DurableObjectId = object;
interface DurableObjectStub {
  fetch(request: Request): Promise<Response>;
}
interface DurableObjectNamespace {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): DurableObjectStub;
}

interface Env {
  ZK_CONNECT: string;
  LOCK_HOLDER: DurableObjectNamespace;
}

const LOCK_PATH = '/workers-example/lock';

export class LockHolder {
  private client: Client | null = null;
  private lease: Lease | null = null;
  private requests = 0;

  constructor(
    _state: unknown,
    private readonly env: Env,
  ) {}

  /** The object's client: made on first use; it renews its own session after an expiry. */
  private async zk(): Promise<Client> {
    if (this.client && this.client.state !== 'closed' && this.client.state !== 'auth-failed') {
      return this.client;
    }
    this.client = await connect(this.env.ZK_CONNECT, { sessionTimeout: 30_000 });
    return this.client;
  }

  async fetch(request: Request): Promise<Response> {
    this.requests++;
    const url = new URL(request.url);
    const zk = await this.zk();
    if (url.pathname === '/acquire' && !this.holds()) {
      const wait = Number(url.searchParams.get('wait') ?? '0');
      const mutex = new Mutex(zk, LOCK_PATH);
      try {
        this.lease = wait > 0 ? await mutex.acquire({ timeout: wait }) : await mutex.tryAcquire();
      } catch (error) {
        if (!(error instanceof LockTimeoutError)) throw error;
      }
    } else if (url.pathname === '/release' && this.lease) {
      await this.lease.release();
      this.lease = null;
    }
    return Response.json({
      session: zk.sessionId.toString(16),
      held: this.holds(),
      fencingToken: this.lease?.fencingToken.toString() ?? null,
      requests: this.requests,
      sessionTimeout: zk.sessionTimeout,
    });
  }

  /** A lease counts only while its signal is live (connection and node intact). */
  private holds(): boolean {
    return this.lease !== null && !this.lease.signal.aborted;
  }
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    const holder = new URL(request.url).searchParams.get('holder') ?? 'default';
    return env.LOCK_HOLDER.get(env.LOCK_HOLDER.idFromName(holder)).fetch(request);
  },
};
