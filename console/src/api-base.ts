// Where the API is, seen from the console's page: pure, unit-tested.

/**
 * The server's base URL: beside the folder the console is served from
 * (`<base>console/`), so that a proxy may mount the server under a path of
 * its own (`/indelible/console/` calls `/indelible/streams/a`).
 */
export function apiBase(origin: string, pagePath: string): string {
  const at = pagePath.lastIndexOf('/console/');
  return origin + (at < 0 ? '/' : pagePath.slice(0, at + 1));
}
