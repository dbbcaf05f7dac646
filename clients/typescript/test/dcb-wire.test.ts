// Tags, query reads, query subscriptions and conditional commits (docs/DCB.md,
// "HTTP") on the wire: what the client sends and how it reads the answers,
// against a stand-in that records every request. dcb.test.ts runs the same
// calls against the real server.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConflictError, IndelibleError, InvalidError, type RecordedEvent } from './subject.js';
import { StandIn, type Answer, type SeenRequest } from './standin.js';

const COMMITTED = JSON.stringify({ position: 9, appends: [{ stream: '$dcb', firstVersion: 3, lastVersion: 3, position: 9 }] });

function wireEvent(position: number, tags?: string[]): Record<string, unknown> {
  const e: Record<string, unknown> = { id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`, stream: '$dcb', version: position - 1, position, type: 'E', data: { n: position }, metadata: {}, timestamp: 1 };
  if (tags !== undefined) e.tags = tags;
  return e;
}

/** A stand-in answering `answer`, a client on it, closed after `body`. */
async function withStandIn(answer: (method: string, url: string, request: SeenRequest) => Answer, body: (c: Client, standin: StandIn) => Promise<void>): Promise<void> {
  const standin = await new StandIn(answer).listen();
  const c = new Client(standin.url, { retries: 0 });
  try {
    await body(c, standin);
  } finally {
    c.close();
    await standin.close();
  }
}

function queryParams(url: string): URLSearchParams {
  return new URL(url, 'http://x').searchParams;
}

test('tags go out with appended and committed events; a commit append without a stream and a condition go as documented', async () => {
  await withStandIn(
    (_method, url) => (url === '/commits' ? { status: 201, body: COMMITTED } : { status: 201, body: '{"stream":"s","firstVersion":0,"lastVersion":0,"position":10}' }),
    async (c, standin) => {
      await c.commit([{ events: [{ type: 'Claimed', data: { u: 1 }, tags: ['username:alice', 'user:1'] }] }], {
        condition: { failIfEventsMatch: { items: [{ types: ['Claimed', 'Released'], tags: ['username:alice'] }] }, after: 41 },
      });
      const sent = JSON.parse(standin.seen[0]!.body) as { appends: Record<string, unknown>[]; condition: unknown };
      assert.equal(standin.seen[0]!.url, '/commits');
      assert.equal('stream' in sent.appends[0]!, false, 'no stream member: the server writes to $dcb');
      assert.deepEqual((sent.appends[0]!.events as Record<string, unknown>[])[0]!.tags, ['username:alice', 'user:1']);
      assert.deepEqual(sent.condition, { failIfEventsMatch: { items: [{ types: ['Claimed', 'Released'], tags: ['username:alice'] }] }, after: 41 });

      // `after` left out: the member is absent (fail on any matching event), not null.
      await c.commit([{ stream: 's', expected: 'any', events: [{ type: 'A' }] }], { condition: { failIfEventsMatch: { items: [{ tags: ['x'] }] } } });
      const second = JSON.parse(standin.seen[1]!.body) as { appends: Record<string, unknown>[]; condition: Record<string, unknown> };
      assert.equal(second.appends[0]!.stream, 's');
      assert.deepEqual(second.condition, { failIfEventsMatch: { items: [{ tags: ['x'] }] } });
      assert.equal('tags' in (second.appends[0]!.events as Record<string, unknown>[])[0]!, false, 'no tags, no member');

      // Without options, no condition member: older servers see the same body as before.
      await c.commit([{ stream: 's', events: [{ type: 'A' }] }]);
      assert.deepEqual(Object.keys(JSON.parse(standin.seen[2]!.body) as object), ['appends']);

      await c.append('s', { type: 'A', tags: ['t:1'] });
      assert.deepEqual((JSON.parse(standin.seen[3]!.body) as Record<string, unknown>[])[0]!.tags, ['t:1']);
    },
  );
});

test("409 reason 'condition' is a ConflictError carrying the position; past 2^53-1 it is refused, not rounded", async () => {
  let position = '17';
  await withStandIn(
    () => ({ status: 409, body: `{"error":"conflict","reason":"condition","position":${position},"message":"the append condition failed"}` }),
    async (c) => {
      const commit = () => c.commit([{ events: [{ type: 'A' }] }], { condition: { failIfEventsMatch: { items: [{ tags: ['x'] }] }, after: 3 } }).catch((e: unknown) => e);
      const err = await commit();
      assert.ok(err instanceof ConflictError, String(err));
      assert.equal(err.status, 409);
      assert.equal(err.reason, 'condition');
      assert.equal(err.position, 17);
      assert.equal(err.actualVersion, undefined);
      assert.equal(err.message, 'the append condition failed');

      position = '9007199254740993';
      const unsafe = await commit();
      assert.ok(unsafe instanceof IndelibleError && !(unsafe instanceof ConflictError), String(unsafe));
      assert.equal(unsafe.code, 'unsafe_integer');
      assert.equal(unsafe.field, 'position');
    },
  );
});

test('readQuery: GET /query with the query as URL-encoded JSON and the options; the page with tags and next', async () => {
  await withStandIn(
    () => ({ body: JSON.stringify({ events: [wireEvent(4, ['course:c1', 'student:s1']), wireEvent(6)], next: 7 }) }),
    async (c, standin) => {
      const query = { items: [{ types: ['StudentEnrolled'], tags: ['course:c1'] }, { tags: ['student:s1'] }] };
      const page = await c.readQuery(query, { from: 2, limit: 2, direction: 'forward', raw: true });
      assert.equal(page.next, 7);
      assert.deepEqual(page.events.map((e) => [e.position, e.tags]), [[4, ['course:c1', 'student:s1']], [6, undefined]]);
      assert.equal('tags' in page.events[1]!, false, 'an event without tags has no member');
      const seen = standin.seen[0]!;
      assert.equal(seen.method, 'GET');
      assert.ok(seen.url.startsWith('/query?'), seen.url);
      const params = queryParams(seen.url);
      assert.deepEqual(JSON.parse(params.get('q')!), query);
      assert.deepEqual([params.get('from'), params.get('limit'), params.get('direction'), params.get('raw')], ['2', '2', 'forward', '1']);

      // The query of no items (every event) sends no q at all; nothing set, nothing sent.
      await c.readQuery({ items: [] });
      assert.equal(standin.seen[1]!.url, '/query');
    },
  );
});

test('readQuery: a query too long for a URL goes as POST /query {query, from, limit, direction, raw}', async () => {
  await withStandIn(
    () => ({ body: JSON.stringify({ events: [], next: 0 }) }),
    async (c, standin) => {
      const items = Array.from({ length: 20 }, (_, i) => ({ tags: [`tag:${i}:${'x'.repeat(100)}`] }));
      const page = await c.readQuery({ items }, { from: 50, limit: 10, direction: 'backward', raw: true });
      assert.deepEqual(page, { events: [], next: 0 });
      const seen = standin.seen[0]!;
      assert.equal(`${seen.method} ${seen.url}`, 'POST /query');
      assert.deepEqual(JSON.parse(seen.body), { query: { items }, from: 50, limit: 10, direction: 'backward', raw: true });
    },
  );
});

test('readQueryAll follows next: forward until a page brings nothing and stays, backward until 0; empty pages that move on do not end it', async () => {
  const forward: Record<string, unknown>[] = [
    { events: [wireEvent(1), wireEvent(3)], next: 4 },
    { events: [], next: 9 }, // events skipped (not readable): go on
    { events: [wireEvent(9)], next: 10 },
    { events: [], next: 10 },
  ];
  const backward: Record<string, unknown>[] = [
    { events: [wireEvent(9), wireEvent(3)], next: 2 },
    { events: [wireEvent(1)], next: 0 },
  ];
  let pages = forward;
  await withStandIn(
    () => ({ body: JSON.stringify(pages.shift()) }),
    async (c, standin) => {
      const seen: RecordedEvent[] = [];
      for await (const e of c.readQueryAll({ items: [{ tags: ['x'] }] }, { pageSize: 2 })) seen.push(e);
      assert.deepEqual(seen.map((e) => e.position), [1, 3, 9]);
      assert.deepEqual(standin.seen.map((r) => queryParams(r.url).get('from')), ['1', '4', '9', '10']);
      assert.ok(standin.seen.every((r) => queryParams(r.url).get('limit') === '2'));

      pages = backward;
      standin.seen.length = 0;
      const back: number[] = [];
      for await (const e of c.readQueryAll({ items: [{ tags: ['x'] }] }, { direction: 'backward' })) back.push(e.position);
      assert.deepEqual(back, [9, 3, 1]);
      assert.deepEqual(standin.seen.map((r) => queryParams(r.url).get('from')), [null, '2']);
      assert.ok(standin.seen.every((r) => queryParams(r.url).get('direction') === 'backward'));
    },
  );
});

test('subscribeQuery: GET /subscribe/query with q, and after a drop resumes with Last-Event-ID and the same query', async () => {
  const query = { items: [{ types: ['StudentEnrolled'], tags: ['course:c1'] }] };
  const sse = (...positions: number[]) => positions.map((p) => `id: ${p}\ndata: ${JSON.stringify(wireEvent(p, ['course:c1']))}\n\n`).join('');
  let connection = 0;
  await withStandIn(
    () => {
      connection++;
      // The first answer ends after two events (a drop); the second brings one more.
      return { contentType: 'text/event-stream', body: connection === 1 ? sse(3, 5) : sse(8) };
    },
    async (c, standin) => {
      const controller = new AbortController();
      const seen: number[] = [];
      for await (const e of c.subscribeQuery(query, { from: 2, signal: controller.signal })) {
        seen.push(e.position);
        if (seen.length === 3) controller.abort();
      }
      assert.deepEqual(seen, [3, 5, 8]);
      const [first, second] = standin.seen;
      assert.equal(new URL(first!.url, 'http://x').pathname, '/subscribe/query');
      assert.deepEqual(JSON.parse(queryParams(first!.url).get('q')!), query);
      assert.equal(queryParams(first!.url).get('from'), '2');
      assert.equal(first!.headers['last-event-id'], undefined);
      assert.deepEqual(JSON.parse(queryParams(second!.url).get('q')!), query);
      assert.equal(queryParams(second!.url).get('from'), null, 'Last-Event-ID says where, not from');
      assert.equal(second!.headers['last-event-id'], '5');
      assert.equal(second!.headers.accept, 'text/event-stream');
    },
  );
});

test('what the client refuses before sending anything: tags, queries, conditions and options of the wrong shape', async () => {
  await withStandIn(
    () => ({ body: '{}' }),
    async (c, standin) => {
      const refused = async (call: () => unknown, field: string) => {
        let err: unknown;
        try {
          const r = call();
          if (r !== null && typeof r === 'object' && Symbol.asyncIterator in r) for await (const _ of r as AsyncIterable<unknown>);
          else await r;
        } catch (e) {
          err = e;
        }
        assert.ok(err instanceof InvalidError, `${field}: ${String(err)}`);
        assert.equal(err.status, 0, field);
        assert.equal(err.field, field);
      };
      await refused(() => c.append('s', { type: 'A', tags: 'user:1' as never }), 'event.tags');
      await refused(() => c.append('s', [{ type: 'A' }, { type: 'B', tags: ['ok', 7 as never] }]), 'events[1].tags[1]');
      await refused(() => c.commit([{ events: [{ type: 'A', tags: [null as never] }] }]), 'appends[0].events[0].tags[0]');
      const q = { items: [{ tags: ['x'] }] };
      await refused(() => c.commit([{ events: [{ type: 'A' }] }], { condition: { failIfEventsMatch: q, after: -1 } }), 'condition.after');
      await refused(() => c.commit([{ events: [{ type: 'A' }] }], { condition: { failIfEventsMatch: q, afterPosition: 3 } as never }), 'condition.afterPosition');
      await refused(() => c.commit([{ events: [{ type: 'A' }] }], { condition: { failIfEventsMatch: [{ tags: ['x'] }] } as never }), 'condition.failIfEventsMatch');
      await refused(() => c.commit([{ events: [{ type: 'A' }] }], { condtion: {} } as never), 'condtion');
      await refused(() => c.readQuery({ items: [{ tag: ['x'] }] } as never), 'query.items[0].tag');
      await refused(() => c.readQuery({ items: [{ types: 'A' }] } as never), 'query.items[0].types');
      await refused(() => c.readQuery({} as never), 'query.items');
      await refused(() => c.readQuery(q, { direction: 'back' as never }), 'direction');
      await refused(() => c.readQuery(q, { limit: 0 }), 'limit');
      await refused(() => c.readQuery(q, { pageSize: 5 } as never), 'pageSize');
      await refused(() => c.readQueryAll(q, { limit: 5 } as never), 'limit');
      await refused(() => c.subscribeQuery({ items: [{ tags: [1 as never] }] }), 'query.items[0].tags[0]');
      await refused(() => c.subscribeQuery(q, { category: 'x' } as never), 'category');
      assert.deepEqual(standin.requests, [], 'nothing was sent');
    },
  );
});
