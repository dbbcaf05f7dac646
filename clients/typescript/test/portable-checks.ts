// The checks every runtime runs against a real server: Chromium (a page,
// test/browser.test.ts), Deno and Bun (test/runtimes.test.ts), and Node.
// The client's module comes in as an argument, and this file imports
// nothing at run time, so its build (build-test/test/portable-checks.js)
// loads as is in a browser, Deno and Bun. Each check is reported, never
// thrown: the Node test names the one that failed.

import type * as Lib from '../src/index.js';

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

/** Runs every check with `lib` (the package's ESM build) against `url`, whose admin key is `apiKey`. */
export async function runChecks(lib: typeof Lib, url: string, apiKey: string): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const check = async (name: string, fn: () => Promise<string>): Promise<void> => {
    try {
      results.push({ name, ok: true, detail: await fn() });
    } catch (err) {
      results.push({ name, ok: false, detail: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    }
  };
  const expect = (cond: boolean, what: string): void => {
    if (!cond) throw new Error(what);
  };
  const client = new lib.Client(url, { apiKey });
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
  const stream = `portable-${run}`;

  await check('transport', async () => client.transportKind);

  await check('append with an expected version', async () => {
    const first = await client.append(stream, { type: 'Opened', data: { owner: 'ann' } }, { expected: 'no_stream' });
    expect(first.lastVersion === 0 && first.replayed === false, `first append: ${JSON.stringify(first)}`);
    const second = await client.append(stream, [{ type: 'Deposited', data: { amount: 10 } }, { type: 'Bytes', data: new Uint8Array([0, 1, 127, 128, 255]) }], { expected: 0 });
    expect(second.firstVersion === 1 && second.lastVersion === 2, `second append: ${JSON.stringify(second)}`);
    return `versions 0..${second.lastVersion}`;
  });

  await check('an append sent again with its ids is a replay (Idempotent-Replay read)', async () => {
    const event = { id: crypto.randomUUID(), type: 'Once' };
    const other = `${stream}-replay`;
    await client.append(other, event);
    const again = await client.append(other, event);
    expect(again.replayed === true, `replayed: ${again.replayed}`);
    return 'replayed';
  });

  await check('read the stream (JSON and bytes)', async () => {
    const events: Lib.RecordedEvent[] = [];
    for await (const e of client.readStream(stream)) events.push(e);
    expect(events.map((e) => e.type).join() === 'Opened,Deposited,Bytes', `types: ${events.map((e) => e.type).join()}`);
    expect((events[0]!.data as { owner: string }).owner === 'ann', `data: ${JSON.stringify(events[0]!.data)}`);
    const bytes = events[2]!.data;
    expect(bytes instanceof Uint8Array && [...bytes].join() === '0,1,127,128,255', `bytes: ${String(bytes)}`);
    return `${events.length} events`;
  });

  await check('a conflict is a ConflictError', async () => {
    const err = await client.append(stream, { type: 'Late' }, { expected: 0 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err instanceof lib.ConflictError, `got ${String(err)}`);
    const conflict = err as Lib.ConflictError;
    expect(conflict.reason === 'version' && conflict.actualVersion === 2 && conflict.status === 409, `reason ${conflict.reason}, actual ${conflict.actualVersion}`);
    expect(typeof conflict.requestId === 'string', 'X-Request-Id read');
    return `actualVersion ${conflict.actualVersion}`;
  });

  await check('a missing stream is a NotFoundError; no key is an UnauthorizedError', async () => {
    const missing = await client.head(`${stream}-none`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(missing instanceof lib.NotFoundError, `got ${String(missing)}`);
    const anonymous = new lib.Client(url, { retries: 0 });
    const refused = await anonymous.head(stream).then(
      () => undefined,
      (e: unknown) => e,
    );
    anonymous.close();
    expect(refused instanceof lib.UnauthorizedError, `got ${String(refused)}`);
    return 'typed';
  });

  await check('a subscription receives a live event, and ends on abort', async () => {
    const stop = new AbortController();
    const seen: Lib.RecordedEvent[] = [];
    const loop = (async () => {
      for await (const e of client.subscribeStream(stream, { from: 3, signal: stop.signal })) {
        seen.push(e);
        stop.abort();
      }
    })();
    // Appended once the subscription is (most likely) waiting: a live event.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const appended = await client.append(stream, { type: 'Live', data: { n: 1 } }, { expected: 2 });
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no event within 5 s')), 5000));
    await Promise.race([loop, timeout]);
    expect(seen.length === 1 && seen[0]!.type === 'Live' && seen[0]!.position === appended.position, `seen ${JSON.stringify(seen.map((e) => e.type))}`);
    return `live event at position ${appended.position}`;
  });

  await check('an ordinary call ends on abort (a long pull)', async () => {
    const group = `portable-${run}`;
    await client.consumers.create(group, { category: `nothing${run}` });
    const abort = new AbortController();
    const t0 = Date.now();
    setTimeout(() => abort.abort(new Error('stopped by the caller')), 200);
    const err = await client.consumers.pull(group, { waitMs: 10000, signal: abort.signal }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const took = Date.now() - t0;
    expect(err instanceof Error && err.message === 'stopped by the caller', `got ${String(err)}`);
    expect(took < 3000, `took ${took} ms`);
    await client.consumers.delete(group);
    return `aborted after ${took} ms`;
  });

  await check('close(): later calls throw `closed`', async () => {
    client.close();
    const err = await client.head(stream).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err instanceof lib.IndelibleError && err.code === 'closed', `got ${String(err)}`);
    return 'closed';
  });
  return results;
}
