// Hash routes (the server serves only index.html, app.js and app.css).
// `#/streams/order-1?from=5` -> {segments: ['streams', 'order-1'], params}.

import { useEffect, useState } from 'preact/hooks';

export interface Route {
  segments: string[]; // percent-decoded
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const cut = text.indexOf('?');
  const path = cut < 0 ? text : text.slice(0, cut);
  const segments = path.split('/').filter((s) => s !== '').map(safeDecode);
  return { segments, params: new URLSearchParams(cut < 0 ? '' : text.slice(cut + 1)) };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A route's href from decoded segments and optional parameters. */
export function href(segments: (string | number)[], params: Record<string, string | number | null | undefined> = {}): string {
  const path = segments.map((s) => encodeURIComponent(String(s))).join('/');
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') search.set(k, String(v));
  const text = search.toString();
  return `#/${path}${text ? `?${text}` : ''}`;
}

export function navigate(to: string): void {
  if (location.hash !== to) location.hash = to;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
