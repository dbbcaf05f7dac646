// The stream listing, a page of 50 names at a time (GET /streams).

import { useState } from 'preact/hooks';
import { getJson, query } from '../api';
import { ErrorAlert } from '../components/ErrorAlert';
import { NameLink } from '../components/NameLink';
import { TableBox } from '../components/TableBox';
import { isoTime } from '../format';
import { useLoad } from '../hooks';
import { href, navigate } from '../router';
import type { StreamList } from '../types';

const kPageSize = 50;

export function StreamsPage({ params }: { params: URLSearchParams }) {
  const prefix = params.get('prefix') ?? '';
  const category = params.get('category') ?? '';
  const after = params.get('after') ?? '';
  const [prefixInput, setPrefixInput] = useState(prefix);
  const [categoryInput, setCategoryInput] = useState(category);
  const path = `/streams${query({ prefix, category, after, limit: kPageSize })}`;
  const { data, error } = useLoad((signal) => getJson<StreamList>(path, signal), path);

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
            <th scope="col">Version</th>
            <th scope="col">Position</th>
            <th scope="col">Last write</th>
            <th scope="col">Deleted</th>
          </tr>
        </thead>
        <tbody>
          {data?.streams.map((s) => (
            <tr key={s.stream}>
              <td>
                <NameLink to={href(['streams', s.stream])} name={s.stream} />
              </td>
              <td class="num">{s.version}</td>
              <td class="num">{s.position}</td>
              <td>{isoTime(s.lastWrite)}</td>
              <td>{s.deleted ? 'yes' : 'no'}</td>
            </tr>
          ))}
        </tbody>
      </TableBox>
      {data && data.streams.length === 0 && <p>No streams{prefix || category ? ' match' : ' yet'}.</p>}
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
