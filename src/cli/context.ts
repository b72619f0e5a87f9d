// What a command runs with: the session (connected on first use), output, deadlines, interrupts.
import { type AuthInfo, type Client, type ConnectOptions, connect } from '../index.js';
import { UsageError } from './errors.js';
import type { Output } from './output.js';

export const DEFAULT_SERVERS = '127.0.0.1:2181';

export interface GlobalOptions {
  /** Connect string, chroot allowed. */
  servers: string;
  /** Connect timeout and per-request deadline, ms. */
  timeout: number;
  sessionTimeout: number;
  auth: AuthInfo[];
  /** SASL DIGEST-MD5 credentials, when given. */
  sasl?: { username: string; password: string };
  readOnly: boolean;
  json: boolean;
}

/** `scheme:credentials`, split at the first colon (`digest:user:password`). */
export function parseAuth(text: string): AuthInfo {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new UsageError(`auth must be scheme:credentials, got "${text}"`);
  return { scheme: text.slice(0, colon), credentials: text.slice(colon + 1) };
}

/**
 * `user:password` for SASL DIGEST-MD5, split at the first colon (the password may hold colons).
 * Undefined or empty: no SASL.
 */
export function parseSasl(text: string | undefined): GlobalOptions['sasl'] {
  if (!text) return undefined;
  const colon = text.indexOf(':');
  if (colon <= 0) throw new UsageError('sasl must be user:password (e.g. --sasl app:secret)');
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/**
 * One ZooKeeper session, opened on first use so that commands that need none (srvr, --help)
 * start at once. In the shell, a session that ended (expired, auth failed) is replaced on the next
 * command.
 */
export class SessionProvider {
  private pending: Promise<Client> | undefined;
  private onNewSession: (client: Client) => void = () => {};

  constructor(private settings: GlobalOptions) {}

  /** The global options the session is (or will be) opened with. */
  get globals(): GlobalOptions {
    return this.settings;
  }

  /**
   * Global options given after the command: they apply as if given before it. Only before the
   * session is opened (the shell keeps the one it has).
   */
  setGlobals(globals: GlobalOptions): void {
    if (this.pending !== undefined) {
      throw new UsageError('global options cannot change an open session');
    }
    this.settings = globals;
  }

  /** Called with every session opened from now on (the shell shows state changes). */
  setListener(listener: (client: Client) => void): void {
    this.onNewSession = listener;
  }

  client(): Promise<Client> {
    if (this.pending === undefined) this.pending = this.open();
    return this.pending;
  }

  /** The connected client, if one was opened and is still usable; else undefined. */
  async current(): Promise<Client | undefined> {
    const client = await this.pending?.catch(() => undefined);
    return client && !isFinal(client.state) ? client : undefined;
  }

  /** Forgets a session that can no longer be used, so the next `client()` opens a new one. */
  async renewIfEnded(): Promise<void> {
    if (this.pending === undefined) return;
    const client = await this.pending.catch(() => undefined);
    if (client === undefined || isFinal(client.state)) {
      this.pending = undefined;
      await client?.close();
    }
  }

  async close(): Promise<void> {
    const client = await this.pending?.catch(() => undefined);
    this.pending = undefined;
    await client?.close();
  }

  private async open(): Promise<Client> {
    const options: ConnectOptions = {
      connectTimeout: this.globals.timeout,
      sessionTimeout: this.globals.sessionTimeout,
      readOnly: this.globals.readOnly,
      auth: this.globals.auth,
      ...(this.globals.sasl ? { sasl: { mechanism: 'DIGEST-MD5', ...this.globals.sasl } } : {}),
    };
    try {
      // connect() itself rejects at once when every server refuses the connection.
      const client = await connect(this.globals.servers, options);
      this.onNewSession(client);
      return client;
    } catch (error) {
      this.pending = undefined;
      throw error;
    }
  }
}

function isFinal(state: Client['state']): boolean {
  return state === 'expired' || state === 'closed' || state === 'auth-failed';
}

export interface CommandContext {
  readonly out: Output;
  readonly globals: GlobalOptions;
  /** The session (connects on first use). */
  client(): Promise<Client>;
  /** Options for one request: aborts it after --timeout. */
  call(): { signal: AbortSignal };
  /** Aborted when the user interrupts a long-running command (Ctrl-C, SIGTERM, SIGHUP). */
  readonly interrupt: AbortSignal;
  /** True inside the interactive shell (stdin is the shell's, not data). */
  readonly inShell: boolean;
  /** Diagnostics for people, on stderr. */
  note(text: string): void;
}
