// The client under test: the package's exports, with `Client` taking the
// transport of INDELIBLE_TEST_TRANSPORT ('node' or 'fetch') when that is
// set, so the whole suite runs once per transport without a change to the
// tests (scripts/test-typescript.sh runs it both ways). A test that names a
// transport keeps it, and so does one that gives a `ca`, which only the
// node transport takes.

import { Client as PackageClient, type ClientOptions } from '../src/index.js';

export * from '../src/index.js';

const forced = process.env.INDELIBLE_TEST_TRANSPORT;
if (forced !== undefined && forced !== '' && forced !== 'node' && forced !== 'fetch') {
  throw new Error(`INDELIBLE_TEST_TRANSPORT must be 'node' or 'fetch', not '${forced}'`);
}

/** The transport the suite runs with: the forced one, or the runtime's default. */
export const testTransport: 'node' | 'fetch' | undefined = forced === 'node' || forced === 'fetch' ? forced : undefined;

function withTransport(options: ClientOptions | undefined): ClientOptions | undefined {
  if (testTransport === undefined) return options;
  // Options that are not an object are the checks' business: passed on as they came.
  if (options === undefined) return { transport: testTransport };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) return options;
  if ('transport' in options || 'ca' in options) return options;
  return { ...options, transport: testTransport };
}

export class Client extends PackageClient {
  constructor(url: string, options?: ClientOptions) {
    super(url, withTransport(options));
  }
}
