// One member of a real ZooKeeper the handle starts: a JVM (QuorumPeerMain) with its own zoo.cfg
// and data directory under the system's temporary directory, on loopback ports. Started fresh,
// killed for `crash`, started again on the same ports and data for `restart`.
import type { ChildProcess } from 'node:child_process';
import { FAST_JVM_FLAGS, type LocalInstall } from './install.js';
import type { NodeModules } from './node-modules.js';

const MAIN_CLASS = 'org.apache.zookeeper.server.quorum.QuorumPeerMain';

/** @internal The ports of one member. */
export interface MemberPorts {
  client: number;
  quorum: number;
  election: number;
}

/** @internal What every member of one server shares. */
export interface JvmSettings {
  install: LocalInstall;
  tickTime: number;
  requireDigest: string | undefined;
  /** All members' ports, by id - 1; one entry: a standalone server. */
  members: MemberPorts[];
  /** The directory holding each member's files. */
  dir: string;
}

/** @internal `Mode:` of a `srvr` answer (undefined while the member does not serve). */
export type Mode = 'standalone' | 'leader' | 'follower';

/** @internal One member's JVM. */
export class JvmMember {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private lastExit = 'never started';
  private readonly dir: string;
  private readonly config: string;

  constructor(
    private readonly node: NodeModules,
    private readonly settings: JvmSettings,
    readonly id: number,
  ) {
    this.dir = node.path.join(settings.dir, `member-${id}`);
    this.config = this.writeConfig();
  }

  get ports(): MemberPorts {
    return this.settings.members[this.id - 1]!;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  spawn(): void {
    if (this.child) return;
    const { install, requireDigest } = this.settings;
    const properties: Record<string, string> = {
      'zookeeper.extendedTypesEnabled': 'true',
      // Test data is disposable: no fsync, no 64 MB log preallocation.
      'zookeeper.forceSync': 'no',
      'zookeeper.preAllocSize': '1024',
      'zookeeper.admin.enableServer': 'false',
      'zookeeper.jmx.log4j.disable': 'true',
      ...(requireDigest === undefined
        ? {}
        : { 'zookeeper.enforce.auth.enabled': 'true', 'zookeeper.enforce.auth.schemes': 'digest' }),
    };
    const args = [
      ...FAST_JVM_FLAGS,
      ...install.jvmFlags,
      ...Object.entries(properties).map(([key, value]) => `-D${key}=${value}`),
      '-cp',
      install.classpath.join(this.node.path.delimiter),
      MAIN_CLASS,
      this.config,
    ];
    const log = this.node.fs.openSync(this.node.path.join(this.dir, 'server.log'), 'a');
    let child: ChildProcess;
    try {
      child = this.node.childProcess.spawn(install.java, args, { stdio: ['ignore', log, log] });
    } finally {
      this.node.fs.closeSync(log);
    }
    this.child = child;
    this.exited = new Promise((resolve) => {
      const gone = (why: string) => {
        this.lastExit = why;
        if (this.child === child) this.child = undefined;
        resolve();
      };
      child.once('exit', (code, signal) => gone(signal ? `signal ${signal}` : `exit code ${code}`));
      child.once('error', (error) => gone(`spawn failed: ${error.message}`));
    });
  }

  /** SIGKILL: no chance to close sessions or sockets cleanly, as a crashed process. */
  async kill(): Promise<void> {
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  /** Why the JVM is not running, for error messages. */
  get exitReason(): string {
    return this.lastExit;
  }

  /** The last lines of its log. */
  logTail(lines = 30): string {
    try {
      const text = this.node.fs.readFileSync(this.node.path.join(this.dir, 'server.log'), 'utf8');
      return text.trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** Its mode from `srvr`, undefined while it does not serve (or does not answer). */
  async mode(): Promise<Mode | undefined> {
    const answer = await fourLetterWord(this.node, this.ports.client, 'srvr').catch(() => '');
    const mode = /^Mode: (\S+)/m.exec(answer)?.[1];
    return mode === 'standalone' || mode === 'leader' || mode === 'follower' ? mode : undefined;
  }

  private writeConfig(): string {
    const { fs, path } = this.node;
    const { tickTime, members } = this.settings;
    const data = path.join(this.dir, 'data');
    fs.mkdirSync(data, { recursive: true });
    const lines = [
      `tickTime=${tickTime}`,
      `dataDir=${data}`,
      'maxClientCnxns=0',
      // The server's defaults, as the model clamps session timeouts: 2 to 20 ticks.
      `minSessionTimeout=${2 * tickTime}`,
      `maxSessionTimeout=${20 * tickTime}`,
      '4lw.commands.whitelist=*',
      'admin.enableServer=false',
    ];
    if (members.length === 1) {
      lines.push(`clientPort=${this.ports.client}`, 'clientPortAddress=127.0.0.1');
    } else {
      fs.writeFileSync(path.join(data, 'myid'), `${this.id}\n`);
      lines.push(
        `initLimit=${Math.max(5, Math.ceil(10_000 / tickTime))}`,
        `syncLimit=${Math.max(2, Math.ceil(3_000 / tickTime))}`,
        ...members.map(
          (p, i) =>
            `server.${i + 1}=127.0.0.1:${p.quorum}:${p.election}:participant;127.0.0.1:${p.client}`,
        ),
      );
    }
    const file = path.join(this.dir, 'zoo.cfg');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  }
}

/** A four-letter word on a fresh connection; everything the server writes before it closes. */
function fourLetterWord(node: NodeModules, port: number, word: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    const socket = node.net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(2000, () => socket.destroy(new Error(`${word} timed out`)));
    socket.on('connect', () => socket.end(word));
    socket.on('data', (chunk: Uint8Array) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', (hadError) => {
      if (!hadError) resolve(new TextDecoder().decode(concat(chunks)));
    });
  });
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
