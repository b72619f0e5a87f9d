// The Node built-ins the real-server handle needs, loaded when it starts: a static import would
// put `node:child_process` into every bundle of zookeeper-ts/testing, workerd's included, where
// it cannot load. Node, Bun and Deno have them all.
import { makeError } from '../../protocol/errors.js';

/** @internal */
export interface NodeModules {
  childProcess: typeof import('node:child_process');
  fs: typeof import('node:fs');
  net: typeof import('node:net');
  os: typeof import('node:os');
  path: typeof import('node:path');
  env: Record<string, string | undefined>;
}

/** @internal Loads them, or fails with a typed error where the runtime has none (workerd). */
export async function loadNodeModules(): Promise<NodeModules> {
  try {
    // Each awaited on its own, directly in the try block: only there does esbuild leave an
    // import it cannot resolve (a bundle for workerd) to fail at run time instead of at build.
    const childProcess = await import('node:child_process');
    const fs = await import('node:fs');
    const net = await import('node:net');
    const os = await import('node:os');
    const path = await import('node:path');
    const processModule = await import('node:process');
    return { childProcess, fs, net, os, path, env: processModule.env };
  } catch (error) {
    throw makeError(
      'BADARGUMENTS',
      "startServer({ kind: 'real' }) runs a ZooKeeper JVM: it needs Node, Bun or Deno (node:child_process)",
      { cause: error },
    );
  }
}
