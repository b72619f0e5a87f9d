// A machine with no Java, as a new user's: a PATH of one directory linking every tool of this
// PATH except Java's, and none of the variables that point at Java, ZooKeeper or a server.
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const JAVA_TOOLS = /^(java|javac|keytool|jar|jshell|javadoc|jdb|jcmd|jps|jstack|jmap|jstat|jinfo)$/;

/** The environment of this process with Java hidden; the links go into `dir/bin`. */
export function envWithoutJava(dir: string): NodeJS.ProcessEnv {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    if (!folder || !existsSync(folder)) continue;
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (JAVA_TOOLS.test(name) || existsSync(join(bin, name))) continue;
      symlinkSync(join(folder, name), join(bin, name));
    }
  }
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: bin };
  for (const name of ['JAVA_HOME', 'ZOOKEEPER_HOME', 'ZOOKEEPER_CONNECT', 'ZOOKEEPER_HARNESS'])
    delete env[name];
  return env;
}
