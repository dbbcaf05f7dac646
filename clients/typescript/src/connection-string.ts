// Connection strings, as KurrentDB's clients take `kurrentdb://...`: the
// server and the client's settings in one string, for an environment
// variable or a config file.
//
//   indelible://HOST[:PORT][/PATH]?tls=true&apiKey=idl_...&ca=/etc/ca.pem
//   https://HOST[:PORT][/PATH]?apiKey=idl_...&ca=/etc/ca.pem
//
// `indelible://` is http unless `tls=true` (port 2113 when left out, the
// server's default); an http(s) URL keeps its scheme and port. The base URL
// of the API never has a query of its own, so any query is settings: each
// must be known (an InvalidError names the one that is not), and an options
// object given beside the string wins over it.

import { invalidArgument } from './check.js';
import type { ClientOptions } from './types.js';

/** A parsed connection string: the API's base URL, its settings, and a CA file to read (Node only). */
export interface Connection {
  url: string;
  options: ClientOptions;
  caFile?: string;
}

const INTEGER_SETTINGS = ['timeoutMs', 'retries', 'maxConnections'] as const;
const SETTINGS = new Set(['apiKey', 'ca', 'tls', 'transport', ...INTEGER_SETTINGS]);

function setting(name: string, why: string): never {
  throw invalidArgument('new Client', 'url', `connection string setting '${name}' ${why}`);
}

export function parseConnectionString(text: string): Connection {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidArgument('new Client', 'url', `is not a URL or connection string: ${JSON.stringify(text)}`);
  }
  const indelible = url.protocol === 'indelible:';
  if (!indelible && url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidArgument('new Client', 'url', `must be indelible, http or https, not ${url.protocol}`);
  const options: ClientOptions = {};
  let caFile: string | undefined;
  let tls = false;
  // forEach: the package's lib has no DOM.Iterable (URLSearchParams' iterator).
  url.searchParams.forEach((value, name) => {
    if (!SETTINGS.has(name)) setting(name, `is unknown (known: ${[...SETTINGS].join(', ')})`);
    if (name === 'apiKey') options.apiKey = value;
    else if (name === 'ca') caFile = value;
    else if (name === 'transport') {
      if (value !== 'node' && value !== 'fetch') setting(name, `must be node or fetch, not '${value}'`);
      options.transport = value;
    } else if (name === 'tls') {
      if (!indelible) setting(name, 'belongs to indelible:// strings (an http(s) URL says it by its scheme)');
      if (value !== 'true' && value !== 'false') setting(name, `must be true or false, not '${value}'`);
      tls = value === 'true';
    } else {
      if (!/^[0-9]+$/.test(value)) setting(name, `must be a whole number, not '${value}'`);
      options[name as (typeof INTEGER_SETTINGS)[number]] = Number(value);
    }
  });
  // `indelible://host` parses with an opaque host in some runtimes: rebuild
  // from the parts that every URL parser agrees on.
  const scheme = indelible ? (tls ? 'https:' : 'http:') : url.protocol;
  const port = url.port !== '' ? url.port : indelible ? '2113' : '';
  const host = port !== '' ? `${url.hostname}:${port}` : url.hostname;
  if (url.hostname === '') throw invalidArgument('new Client', 'url', `names no host: ${JSON.stringify(text)}`);
  const base = `${scheme}//${host}${url.pathname === '/' ? '' : url.pathname}`;
  return caFile === undefined ? { url: base, options } : { url: base, options, caFile };
}
