// Where a real ZooKeeper comes from on this machine: a release unpacked at ZOOKEEPER_HOME, else
// Debian's package (/usr/share/java/zookeeper.jar), run with the `java` of JAVA_HOME or PATH.
// One finder for the real-server handle and the repository's own test harness; it reads the
// file system through a probe, so it can run on modules loaded late (see node-modules.ts).

/** @internal A ZooKeeper installation that can be run with `java`. */
export interface LocalInstall {
  /** Where it was found, for messages. */
  origin: string;
  java: string;
  keytool: string;
  classpath: string[];
  /** JVM flags the installation needs (e.g. its logging configuration). */
  jvmFlags: string[];
}

/** @internal What the finder reads. */
export interface InstallProbe {
  env: Record<string, string | undefined>;
  exists(path: string): boolean;
  isFile(path: string): boolean;
  list(dir: string): string[];
  join(...parts: string[]): string;
  /** PATH's separator. */
  delimiter: string;
}

const DEBIAN_JAVA_DIR = '/usr/share/java';

/** @internal The install, or why there is none. */
export function findLocalInstall(probe: InstallProbe): LocalInstall | string {
  const java = findJavaTool(probe, 'java');
  const keytool = findJavaTool(probe, 'keytool') ?? 'keytool';
  const home = probe.env.ZOOKEEPER_HOME;
  if (home) {
    const install = fromHome(probe, home);
    if (typeof install === 'string') return install;
    if (!java)
      return 'ZOOKEEPER_HOME is set but no `java` was found (set JAVA_HOME or put java on PATH)';
    return { ...install, java, keytool };
  }
  const debianJar = probe.join(DEBIAN_JAVA_DIR, 'zookeeper.jar');
  if (probe.exists(debianJar)) {
    if (!java) return `${debianJar} exists but no \`java\` was found on PATH`;
    return {
      origin: debianJar,
      java,
      keytool,
      // The jar's manifest carries the rest of its classpath. Debian leaves out a logging binding
      // and the Netty codec/resolver jars that the Netty (TLS) connection factory needs.
      classpath: [
        debianJar,
        firstExisting(probe, ['slf4j-simple.jar', 'slf4j-nop.jar']),
        ...['netty-codec.jar', 'netty-resolver.jar', 'netty-transport-native-unix-common.jar'].map(
          (jar) => probe.join(DEBIAN_JAVA_DIR, jar),
        ),
      ].filter((path): path is string => path !== undefined && probe.exists(path)),
      jvmFlags: [],
    };
  }
  return 'no local ZooKeeper found (ZOOKEEPER_HOME is unset and /usr/share/java/zookeeper.jar is absent)';
}

function fromHome(
  probe: InstallProbe,
  home: string,
): Omit<LocalInstall, 'java' | 'keytool'> | string {
  const lib = probe.join(home, 'lib');
  const jars = probe.exists(lib) ? probe.list(lib).filter((name) => name.endsWith('.jar')) : [];
  if (jars.length === 0)
    return `ZOOKEEPER_HOME=${home} has no lib/*.jar (expected a binary release)`;
  const classpath = [probe.join(lib, '*'), probe.join(home, '*')];
  const hasBinding = jars.some((name) =>
    /^(logback-classic|slf4j-(simple|nop|log4j12|reload4j))/.test(name),
  );
  if (!hasBinding) {
    const simple = firstExisting(probe, ['slf4j-simple.jar', 'slf4j-nop.jar']);
    if (simple) classpath.push(simple);
  }
  const jvmFlags: string[] = [];
  const logback = probe.join(home, 'conf', 'logback.xml');
  if (probe.exists(logback)) jvmFlags.push(`-Dlogback.configurationFile=${logback}`);
  return { origin: `ZOOKEEPER_HOME=${home}`, classpath, jvmFlags };
}

function firstExisting(probe: InstallProbe, names: string[]): string | undefined {
  return names.map((name) => probe.join(DEBIAN_JAVA_DIR, name)).find((path) => probe.exists(path));
}

function findJavaTool(probe: InstallProbe, name: string): string | undefined {
  const javaHome = probe.env.JAVA_HOME;
  if (javaHome && probe.isFile(probe.join(javaHome, 'bin', name)))
    return probe.join(javaHome, 'bin', name);
  for (const dir of (probe.env.PATH ?? '').split(probe.delimiter)) {
    if (dir && probe.isFile(probe.join(dir, name))) return probe.join(dir, name);
  }
  return undefined;
}

/**
 * @internal JVM flags that make a ZooKeeper server start in well under a second on a 2-core
 * machine and stay small: C1 only, serial GC, a modest heap, no perf-data file.
 */
export const FAST_JVM_FLAGS = [
  '-Xms16m',
  '-Xmx192m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-XX:-UsePerfData',
  '-Xshare:auto',
  '-Djava.net.preferIPv4Stack=true',
  '-Djava.awt.headless=true',
] as const;
