// The web globals our declarations name, for consumers whose TypeScript set-up declares none of
// them: `"lib": ["es2022"]` without DOM, and no runtime types (TypeScript 6+ no longer picks up
// @types/node by itself). Referenced with `preserve="true"` from the declaration files that use
// them. Each is an interface that merges with the runtime's own declaration wherever there is one
// (lib.dom, @types/node, Deno, workers-types, bun-types; the package suite checks the first four):
// there the full types apply. Without them the declarations still compile, and a signal offers
// only `aborted`. The type parameters must repeat the other declarations' exactly (`= any`
// included), or TypeScript refuses to merge them.

declare global {
  // The runtime's AbortSignal. Line comments, not JSDoc: the runtime's own documentation wins.
  interface AbortSignal {
    readonly aborted: boolean;
  }
  // The runtime's WHATWG ReadableStream.
  // biome-ignore lint/suspicious/noExplicitAny: must equal lib.dom's and @types/node's default to merge
  interface ReadableStream<R = any> {}
  // The runtime's WHATWG WritableStream.
  // biome-ignore lint/suspicious/noExplicitAny: must equal lib.dom's and @types/node's default to merge
  interface WritableStream<W = any> {}
}

export {};
