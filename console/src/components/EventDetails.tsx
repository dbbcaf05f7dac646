// One stored event in full: ids, links, data and metadata.

import { base64, isoTime } from '../format';
import { Time } from './Time';
import { href } from '../router';
import type { RecordedEvent } from '@indelible/client';
import { JsonView } from './JsonView';

export interface EventDetailsProps {
  event: RecordedEvent;
  /** Events known to the page, by id: a causation/correlation id links to its position when found here, else to the lookup by id. */
  known?: Map<string, RecordedEvent>;
  /** The event page shows stream, version, type and time; a row already does. */
  full?: boolean;
}

export function EventDetails({ event, known, full }: EventDetailsProps) {
  const metadata = event.metadata ?? {};
  return (
    <div class="event-details">
      <dl class="facts">
        {full && (
          <>
            <dt>Stream</dt>
            <dd>
              <a href={href(['streams', event.stream])}>{event.stream}</a>
            </dd>
            <dt>Version</dt>
            <dd>{event.version}</dd>
            <dt>Type</dt>
            <dd>{event.type}</dd>
            <dt>Time</dt>
            <dd>
              {isoTime(event.timestamp)} (<Time ms={event.timestamp} />)
            </dd>
          </>
        )}
        <dt>Position</dt>
        <dd>
          <a href={href(['events', event.position])}>{event.position}</a>
        </dd>
        <dt>Id</dt>
        <dd class="mono">{event.id}</dd>
        {event.schema !== '' && (
          <>
            <dt>Schema</dt>
            <dd>{event.schema}</dd>
          </>
        )}
        <RelatedId label="Causation id" id={metadata['causationId']} known={known} />
        <RelatedId label="Correlation id" id={metadata['correlationId']} known={known} />
      </dl>
      <h3>Data</h3>
      {event.data instanceof Uint8Array ? (
        <p>
          Binary data ({event.contentType ?? 'unknown type'}), base64: <code class="mono wrap">{base64(event.data)}</code>
        </p>
      ) : (
        <JsonView value={event.data} label={`Data of event ${event.version}`} />
      )}
      <h3>Metadata</h3>
      <JsonView value={metadata} label={`Metadata of event ${event.version}`} />
    </div>
  );
}

function RelatedId({ label, id, known }: { label: string; id: unknown; known?: Map<string, RecordedEvent> }) {
  if (typeof id !== 'string') return null;
  const target = known?.get(id);
  return (
    <>
      <dt>{label}</dt>
      <dd class="mono">
        <a href={href(['events', target ? target.position : id])}>{id}</a>
      </dd>
    </>
  );
}
