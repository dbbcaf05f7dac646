// Event ids and byte data without Node's `crypto` module or `Buffer`:
// what every runtime (Node 20, browsers, Deno, Bun, Workers) has.

interface WebCrypto {
  randomUUID?: () => string;
  getRandomValues<T extends Uint8Array>(array: T): T;
}

/** The runtime's UUID maker, found on first use (appends call it per event). */
let makeUUID: (() => string) | undefined;

/** A random (version 4) UUID: a new event's id. */
export function randomUUID(): string {
  return (makeUUID ??= findUUIDMaker())();
}

function findUUIDMaker(): () => string {
  const crypto = (globalThis as { crypto?: WebCrypto }).crypto;
  if (crypto === undefined) throw new Error('@indelible/client needs globalThis.crypto (Node 20, browsers, Deno, Bun and Workers have it) to make event ids');
  // Browsers give randomUUID to secure contexts only (https, localhost);
  // a page on plain http still has getRandomValues.
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID.bind(crypto);
  return () => uuidFromBytes(crypto.getRandomValues(new Uint8Array(16)));
}

/** Sixteen random bytes as a version 4, variant 1 UUID (RFC 9562). */
export function uuidFromBytes(b: Uint8Array): string {
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  let hex = '';
  for (let i = 0; i < 16; i++) hex += b[i]!.toString(16).padStart(2, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Bytes as base64 (the wire form of byte data). */
export function toBase64(bytes: Uint8Array): string {
  // btoa takes a "binary string" (one char per byte); built in slices, as
  // fromCharCode's arguments are limited in number.
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[]);
  }
  return btoa(binary);
}

/** base64 back to bytes. */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
