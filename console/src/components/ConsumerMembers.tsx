// The workers of a consumer group: each `consumer` name that pulled lately,
// what it holds and when it last pulled (GET /consumers/{group}'s members).

import type { ConsumerMember } from '@indelible/client';
import { Name } from './NameLink';
import { TableBox } from './TableBox';
import { Time } from './Time';

export function ConsumerMembers({ members, omitted }: { members: ConsumerMember[]; omitted: boolean }) {
  return (
    <section aria-labelledby="members-heading" class="panel">
      <h2 id="members-heading">Members</h2>
      {members.length === 0 ? (
        <p>
          No worker has pulled in the last 5 minutes. A worker shows here from its first pull (<code>POST /consumers/…/pull?consumer=NAME</code>, or a
          client's worker), and is forgotten 5 minutes after its last pull once it holds nothing.
        </p>
      ) : (
        <TableBox label="Members">
          <thead>
            <tr>
              <th scope="col">Consumer</th>
              <th scope="col">In flight</th>
              <th scope="col">Waiting</th>
              <th scope="col">Last pull</th>
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr key={m.consumer}>
                <td>
                  <Name name={m.consumer} />
                </td>
                <td class="num">{m.inFlight}</td>
                <td class="num">{m.waiting}</td>
                <td>
                  <Time ms={m.lastPull} />
                </td>
              </tr>
            ))}
          </tbody>
        </TableBox>
      )}
      {omitted && <p class="note">More workers pulled lately than the server lists (1000 at most): some are not shown.</p>}
    </section>
  );
}
