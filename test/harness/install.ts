import { existsSync, readdirSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A ZooKeeper installation on this machine that the harness can run with `java`. */
export interface LocalInstall {
  /** Where it was found, for messages. */
  origin: string;
  java: string;
  keytool: string;
  classpath: string[];
  /** JVM flags the installation needs (e.g. its logging configuration). */
  jvmFlags: string[];
}

const DEBIAN_JAVA_DIR = '/usr/share/java';

/**
 * Finds a local ZooKeeper: `ZOOKEEPER_HOME` (a release tarball with lib/*.jar) first, then Debian's
 * /usr/share/java/zookeeper.jar. Returns a reason string when there is none.
 */
export function findLocalInstall(): LocalInstall | string {
  const java = findJavaTool('java');
  const keytool = findJavaTool('keytool');
  const home = process.env.ZOOKEEPER_HOME;
  if (home) {
    const install = fromHome(home);
    if (typeof install === 'string') return install;
    if (!java)
      return 'ZOOKEEPER_HOME is set but no `java` was found (set JAVA_HOME or put java on PATH)';
    return { ...install, java, keytool: keytool ?? 'keytool' };
  }
  const debianJar = join(DEBIAN_JAVA_DIR, 'zookeeper.jar');
  if (existsSync(debianJar)) {
    if (!java) return `${debianJar} exists but no \`java\` was found on PATH`;
    return {
      origin: debianJar,
      java,
      keytool: keytool ?? 'keytool',
      // The jar's manifest carries the rest of its classpath. Debian leaves out a logging binding
      // and the Netty codec/resolver jars that the Netty (TLS) connection factory needs.
      classpath: [
        debianJar,
        firstExisting(['slf4j-simple.jar', 'slf4j-nop.jar']),
        ...['netty-codec.jar', 'netty-resolver.jar', 'netty-transport-native-unix-common.jar'].map(
          (jar) => join(DEBIAN_JAVA_DIR, jar),
        ),
      ].filter((path): path is string => path !== undefined && existsSync(path)),
      jvmFlags: [],
    };
  }
  return 'no local ZooKeeper found (ZOOKEEPER_HOME is unset and /usr/share/java/zookeeper.jar is absent)';
}

function fromHome(home: string): Omit<LocalInstall, 'java' | 'keytool'> | string {
  const lib = join(home, 'lib');
  const jars = existsSync(lib) ? readdirSync(lib).filter((name) => name.endsWith('.jar')) : [];
  if (jars.length === 0)
    return `ZOOKEEPER_HOME=${home} has no lib/*.jar (expected a binary release)`;
  const classpath = [join(lib, '*'), join(home, '*')];
  const hasBinding = jars.some((name) =>
    /^(logback-classic|slf4j-(simple|nop|log4j12|reload4j))/.test(name),
  );
  if (!hasBinding) {
    const simple = firstExisting(['slf4j-simple.jar', 'slf4j-nop.jar']);
    if (simple) classpath.push(simple);
  }
  const jvmFlags: string[] = [];
  const logback = join(home, 'conf', 'logback.xml');
  if (existsSync(logback)) jvmFlags.push(`-Dlogback.configurationFile=${logback}`);
  return { origin: `ZOOKEEPER_HOME=${home}`, classpath, jvmFlags };
}

function firstExisting(names: string[]): string | undefined {
  return names.map((name) => join(DEBIAN_JAVA_DIR, name)).find((path) => existsSync(path));
}

function findJavaTool(name: string): string | undefined {
  const javaHome = process.env.JAVA_HOME;
  if (javaHome && isFile(join(javaHome, 'bin', name))) return join(javaHome, 'bin', name);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && isFile(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
