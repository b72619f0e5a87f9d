// examples/testing/jest.config.js: Jest for an ESM TypeScript project. Run it with
// NODE_OPTIONS=--experimental-vm-modules npx jest (Jest's ESM support is behind that flag).
export default {
  testEnvironment: 'node',
  // Your .ts files are ESM (package.json has "type": "module").
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '\\.ts$': '<rootDir>/jest-esbuild.js' },
  // TypeScript's NodeNext imports say ./x.js for ./x.ts: let Jest find the .ts file.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
