// examples/testing/jest-esbuild.js: Jest's transform for TypeScript, by esbuild (no ts-jest, no
// Babel). It strips the types and leaves an ES module (CommonJS only if something require()s the
// file); it checks no types: tsc --noEmit does that.
import { transformSync } from 'esbuild';

export default {
  process(source, path, options) {
    const { code, map } = transformSync(source, {
      loader: 'ts',
      format: options.supportsStaticESM ? 'esm' : 'cjs',
      target: `node${process.versions.node}`,
      sourcefile: path,
      sourcemap: 'external',
    });
    return { code, map };
  },
};
