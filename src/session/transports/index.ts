/**
 * Every transport, for `connect(hosts, { transport })`. Safe to import on any runtime: each
 * adapter touches its runtime's API only when it connects.
 * @module zookeeper-ts/transports
 */

export { bunTransport } from './bun.js';
export type { SocketConnect } from './cloudflare.js';
export { cloudflareSocketsTransport, cloudflareTransport } from './cloudflare.js';
export { defaultTransport } from './default.js';
export { denoTransport } from './deno.js';
export { nodeTransport } from './node.js';
export { detectRuntime, type RuntimeName } from './runtime.js';
export type { WebStreamOpener, WebStreamSocket } from './web.js';
export { WebStreamConnection, webStreamTransport } from './web.js';
