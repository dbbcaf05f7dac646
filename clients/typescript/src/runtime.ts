// Which sender a client uses when its options do not say: `node:http` on
// Node itself (several times cheaper per request than Node's fetch:
// docs/BENCHMARKS.md, "The TypeScript client"), `fetch` everywhere else.
//
// Only globals are read here, through a cast: this module is evaluated in
// every runtime, and neither it nor the package's types may need Node's.

/** How a client talks to the server: `node:http(s)` (Node only) or the runtime's `fetch`. */
export type TransportKind = 'node' | 'fetch';

interface Globals {
  process?: { versions?: { node?: unknown } };
  Bun?: unknown;
  Deno?: unknown;
  navigator?: { userAgent?: unknown };
}

/** The sender for this runtime when the user does not choose one. */
export function defaultTransport(): TransportKind {
  const g = globalThis as Globals;
  if (typeof g.process?.versions?.node !== 'string') return 'fetch';
  // Bun and Deno imitate Node (process.versions.node, a node:http of
  // their own making): their fetch is the native path there.
  if (g.Bun !== undefined || g.Deno !== undefined) return 'fetch';
  // Workers with Node compatibility have a `process` too, and no sockets of their own.
  const ua = g.navigator?.userAgent;
  if (typeof ua === 'string' && ua.startsWith('Cloudflare-Workers')) return 'fetch';
  return 'node';
}
