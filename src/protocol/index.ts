/** The wire protocol: jute encoding, records, opcodes, framing, errors and paths. */

export * from './codecs.js';
export * from './errors.js';
export * from './frame.js';
export * from './multi.js';
export * from './ops.js';
export * from './paths.js';
export * from './reader.js';
export * from './records.js';
export * from './requests.js';
export * from './writer.js';
