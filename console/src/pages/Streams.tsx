// The stream listing, a page of 50 names at a time (GET /streams?last=true):
// each stream's event count (version + 1: every event appended, docs/HTTP.md)
// and its newest event's type and time.

import { useState } from 'preact/hooks';
import { client } from '../client';
import { EmptyState, serverUrl } from '../components/EmptyState';
import { ErrorAlert } from '../components/ErrorAlert';
import { Name, NameLink } from '../components/NameLink';
import { number } from '../format';
import { TableBox } from '../components/TableBox';
import { Time } from '../components/Time';
import { useLoad } from '../hooks';
import { href, navigate } from '../router';
import { maySomewhere } from '../auth';
import { useWho } from '../session';

const kPageSize = 50;

export function StreamsPage({ params }: { params: URLSearchParams }) {
  const prefix = params.get('prefix') ?? '';
  const category = params.get('category') ?? '';
  const after = params.get('after') ?? '';
  const [prefixInput, setPrefixInput] = useState(prefix);
  const [categoryInput, setCategoryInput] = useState(category);
  const key = `${prefix}|${category}|${after}`;
  const { data, error } = useLoad((signal) => client.listStreamsPage({ prefix: prefix || undefined, category: category || undefined, after: after || undefined, limit: kPageSize, last: true, signal }), key);

  const search = (e: Event) => {
    e.preventDefault();
    navigate(href(['streams'], { prefix: prefixInput.trim(), category: categoryInput.trim() }));
  };

  return (
    <>
      <h1>Streams</h1>
      <form class="form inline" onSubmit={search} role="search">
        <div>
          <label for="streams-prefix">Prefix</label>
          <input id="streams-prefix" value={prefixInput} onInput={(e) => setPrefixInput(e.currentTarget.value)} />
        </div>
        <div>
          <label for="streams-category">Category</label>
          <input id="streams-category" value={categoryInput} onInput={(e) => setCategoryInput(e.currentTarget.value)} />
        </div>
        <button type="submit">Search</button>
      </form>
      <ErrorAlert error={error} />
      <TableBox label="Streams">
        <thead>
          <tr>
            <th scope="col">Stream</th>
            <th scope="col">Events</th>
            <th scope="col">Newest event</th>
            <th scope="col">Last write</th>
            <th scope="col">Position</th>
            <th scope="col">Deleted</th>
          </tr>
        </thead>
        <tbody>
          {data?.streams.map((s) => (
            <tr key={s.stream}>
              <td>
                <NameLink to={href(['streams', s.stream])} name={s.stream} />
              </td>
              <td class="num">{number(s.version + 1)}</td>
              <td>{s.last ? <Name name={s.last.type} /> : s.last === null ? <span class="muted">hidden by retention</span> : '–'}</td>
              <td>
                <Time ms={s.last?.timestamp ?? s.lastWrite} />
              </td>
              <td class="num">{s.position}</td>
              <td>{s.deleted ? 'yes' : 'no'}</td>
            </tr>
          ))}
        </tbody>
      </TableBox>
      {data && data.streams.length === 0 && (prefix || category || after ? <NoMatch prefix={prefix} category={category} /> : <NoStreams />)}
      <div class="buttons">
        <button type="button" disabled={!after} onClick={() => navigate(href(['streams'], { prefix, category }))}>
          First page
        </button>
        <button type="button" disabled={!data?.next} onClick={() => data?.next && navigate(href(['streams'], { prefix, category, after: data.next }))}>
          Next page
        </button>
      </div>
    </>
  );
}

function NoStreams() {
  const who = useWho();
  return (
    <EmptyState title="No streams yet.">
      <p>A stream appears with its first event.{maySomewhere(who, 'write') && (
          <>
            {' '}
            <a href={href(['append'])}>Append an event</a> here, or from a shell:
          </>
        )}
      </p>
      <pre class="mono wrap">{`curl -X POST ${serverUrl()}/streams/order-1 -H 'Content-Type: application/json' -d '{"type":"Order.Placed","data":{"amount":5}}'`}</pre>
    </EmptyState>
  );
}

function NoMatch({ prefix, category }: { prefix: string; category: string }) {
  const what = [prefix && `names starting with “${prefix}”`, category && `the category “${category}”`].filter(Boolean).join(' in ');
  return (
    <EmptyState title={`No stream matches${what ? `: ${what}` : ''}.`}>
      <p>
        Names match from their first character, case and all; a category is the part of a name before its first <code>-</code> or <code>/</code>.{' '}
        <a href={href(['streams'])}>Show every stream</a>
      </p>
    </EmptyState>
  );
}
