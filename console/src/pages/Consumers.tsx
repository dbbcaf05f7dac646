// Every consumer group the principal may see, refreshed every 2 s.

import { client } from '../client';
import { EmptyState, serverUrl } from '../components/EmptyState';
import { ErrorAlert } from '../components/ErrorAlert';
import { NameLink } from '../components/NameLink';
import { TableBox } from '../components/TableBox';
import { number } from '../format';
import { useLoad } from '../hooks';
import { href } from '../router';

const kRefreshMs = 2000;

export function ConsumersPage() {
  const { data, error } = useLoad((signal) => client.consumers.list({ signal }), 'consumers', kRefreshMs);
  return (
    <>
      <h1>Consumer groups</h1>
      <ErrorAlert error={error} />
      <TableBox label="Consumer groups">
        <thead>
          <tr>
            <th scope="col">Group</th>
            <th scope="col">Checkpoint</th>
            <th scope="col">Lag (events)</th>
            <th scope="col">Lag (seconds)</th>
            <th scope="col">In flight</th>
            <th scope="col">Redeliveries</th>
            <th scope="col">Blocked</th>
            <th scope="col">Parked</th>
          </tr>
        </thead>
        <tbody>
          {data?.map((c) => (
            <tr key={c.group}>
              <td>
                <NameLink to={href(['consumers', c.group])} name={c.group} />
              </td>
              <td class="num">{c.checkpoint}</td>
              <td class="num">{c.lagEvents}</td>
              <td class="num">{number(c.lagSeconds, 1)}</td>
              <td class="num">{c.inFlight}</td>
              <td class="num">{c.redeliveries}</td>
              <td>{c.blocked ? `at ${c.blocked.position}` : 'no'}</td>
              <td class="num">{c.parked.events}</td>
            </tr>
          ))}
        </tbody>
      </TableBox>
      {data && data.length === 0 && (
        <EmptyState title="No consumer groups yet.">
          <p>
            A group hands the events its filter selects to the workers that share it, each event at least once and each stream in order, and keeps their
            checkpoint. Create one from a shell, then pull from it with a worker (docs/HTTP.md, "Consumer groups"):
          </p>
          <pre class="mono wrap">{`indelible --url ${serverUrl()} consumers create billing --category order`}</pre>
        </EmptyState>
      )}
    </>
  );
}
