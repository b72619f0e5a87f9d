// examples/testing/jest.config.js: Jest for an ESM TypeScript project. Run it with
// NODE_OPTIONS=--experimental-vm-modules npx jest (Jest's ESM support is behind that flag).
export default {
  testEnvironment: 'node',
  // Your .ts files are ESM (package.json has "type": "module").
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '\\.ts$': '<rootDir>/jest-esbuild.js' },
  // TypeScript's NodeNext imports say ./x.js for ./x.ts: let Jest find the .ts file.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // Jest's default of 5 s for a test or a hook is less than a real ZooKeeper's start on a
  // loaded machine (ZKTS_TEST_SERVER=real starts a JVM in beforeAll).
  testTimeout: 60_000,
};
