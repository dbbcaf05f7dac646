// The console's one connection to the server: the TypeScript client
// (clients/typescript), on its fetch transport, with the signed-in
// credential. Pages call `client` and show a failure through `failure()`, so
// a 401 anywhere signs out the same way.

import { Client, IndelibleError, UnauthorizedError } from '@indelible/client';
import { apiBase } from './api-base';

const kCredentialKey = 'indelible.credential';

// sessionStorage, not localStorage: a key should not outlive the tab.
export function credential(): string | null {
  return sessionStorage.getItem(kCredentialKey);
}
export function setCredential(value: string | null): void {
  if (value) sessionStorage.setItem(kCredentialKey, value);
  else sessionStorage.removeItem(kCredentialKey);
}

export const client = new Client(apiBase(location.origin, location.pathname), {
  transport: 'fetch',
  // Read before every request: signing in or out takes effect at once.
  token: credential,
});

let onUnauthorized: () => void = () => {};
/** Called on every 401, wherever it came from (the app sends the user to sign in). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/**
 * What a page shows for a failed call: the client's typed error, or one made
 * from anything else thrown. A 401 also runs the sign-in handler.
 */
export function failure(e: unknown): IndelibleError {
  if (e instanceof UnauthorizedError) onUnauthorized();
  if (e instanceof IndelibleError) return e;
  return new IndelibleError(e instanceof Error ? e.message : String(e), 0, 'internal');
}

/** A failure in plain words: `403 forbidden: principal ... lacks ...`; status 0 when no answer came. */
export function describeFailure(e: IndelibleError): string {
  return `${e.status} ${e.code}: ${e.message}`;
}

/** Whether `e` is the abort of a call the page gave up (left, or asked again). */
export function isAbort(e: unknown): boolean {
  return e instanceof DOMException && e.name === 'AbortError';
}
