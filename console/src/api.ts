// The one HTTP client of the console: every call sends the credential and
// turns a failed answer into an ApiError, so pages show errors one way.

const kCredentialKey = 'indelible.credential';

/** A failed API call: the HTTP status and the server's {error, message}. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
  /** What the error alert shows: `403 unauthorized: principal ... lacks ...`. */
  describe(): string {
    return `${this.status} ${this.error}: ${this.message}`;
  }
}

// sessionStorage, not localStorage: a key should not outlive the tab.
export function credential(): string | null {
  return sessionStorage.getItem(kCredentialKey);
}
export function setCredential(value: string | null): void {
  if (value) sessionStorage.setItem(kCredentialKey, value);
  else sessionStorage.removeItem(kCredentialKey);
}

let onUnauthorized: () => void = () => {};
/** Called on every 401, wherever it came from (the app sends the user to sign in). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export function authHeaders(): Record<string, string> {
  const value = credential();
  return value ? { Authorization: `Bearer ${value}` } : {};
}

/** Reads a failed answer's JSON error; a body that is not one still gives a readable error. */
export async function errorFrom(response: Response): Promise<ApiError> {
  let error = 'error';
  let message = response.statusText || 'request failed';
  try {
    const body = (await response.json()) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') error = body.error;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // Not JSON (a proxy's page, say): keep the status line.
  }
  if (response.status === 401) onUnauthorized();
  return new ApiError(response.status, error, message);
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * The URL of an API path ("/streams/a"): beside the folder the console is
 * served from (`<base>console/`), so that a proxy may mount the server
 * under a path of its own (`/indelible/console/` calls `/indelible/streams/a`).
 */
export function apiUrl(path: string, pagePath: string = location.pathname): string {
  const at = pagePath.lastIndexOf('/console/');
  const base = at < 0 ? '/' : pagePath.slice(0, at + 1);
  return base + path.replace(/^\//, '');
}

/** Fetches with the credential; throws ApiError on any status but 2xx. */
export async function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...authHeaders(), ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(apiUrl(path), { method: options.method ?? 'GET', headers, body, signal: options.signal });
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw new ApiError(0, 'unavailable', 'the server did not answer (network error)');
  }
  if (!response.ok) throw await errorFrom(response);
  return response;
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  return (await (await request(path, { signal })).json()) as T;
}

export async function postJson<T>(path: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
  return (await (await request(path, { method: 'POST', body, headers })).json()) as T;
}

/** A query string from the non-empty values, e.g. `?prefix=a&limit=50`. */
export function query(params: Record<string, string | number | boolean | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** One path segment: a stream name may hold `/`, which must not split the path. */
export const seg = encodeURIComponent;
