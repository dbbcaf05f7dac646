// Event schemas (docs/SCHEMAS.md): the registered types with their versions,
// mode and compatibility, and one type's versions (each schema
// pretty-printed) and upcasters. Read only: changes go through the CLI or
// the API, with an admin key.

import { Fragment } from 'preact';
import type { SchemaSettings } from '@indelible/client';
import { client } from '../client';
import { EmptyState, serverUrl } from '../components/EmptyState';
import { ErrorAlert } from '../components/ErrorAlert';
import { Name, NameLink } from '../components/NameLink';
import { TableBox } from '../components/TableBox';
import { Time } from '../components/Time';
import { useLoad } from '../hooks';
import { href } from '../router';

const kRefreshMs = 5000;

/** What a type inherits when it sets nothing: the category's setting, else the default (off, backward). */
function setting(value: string | undefined): string {
  return value ?? 'inherited';
}

export function SchemasPage() {
  const { data, error } = useLoad((signal) => client.listSchemas({ signal }), 'schemas', kRefreshMs);
  const categories = data ? Object.entries(data.categories) : [];
  return (
    <>
      <h1>Schemas</h1>
      <ErrorAlert error={error} />
      <TableBox label="Schema types">
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Versions</th>
            <th scope="col">Mode</th>
            <th scope="col">Compatibility</th>
            <th scope="col">Upcasters</th>
          </tr>
        </thead>
        <tbody>
          {data?.types.map((t) => (
            <tr key={t.type}>
              <td>
                <NameLink to={href(['schemas', t.type])} name={t.type} />
              </td>
              <td>{t.versions.map((v) => v.version).join(', ')}</td>
              <td>{setting(t.settings.mode)}</td>
              <td>{setting(t.settings.compatibility)}</td>
              <td class="num">{t.upcasters.length}</td>
            </tr>
          ))}
        </tbody>
      </TableBox>
      {data && data.types.length === 0 && (
        <EmptyState title="No schemas registered yet.">
          <p>
            A JSON Schema per event type and version lets the store check appends (off, warn or enforce) and upcast old events on reads (docs/SCHEMAS.md).
            Register one with an admin key:
          </p>
          <pre class="mono wrap">{`indelible --url ${serverUrl()} schemas register Order.Placed V1 order-v1.json`}</pre>
        </EmptyState>
      )}
      {data && (
        <section aria-labelledby="schema-settings-heading" class="panel">
          <h2 id="schema-settings-heading">Settings</h2>
          <dl class="facts">
            <dt>Default</dt>
            <dd>{describe(data.default, true)}</dd>
            {categories.map(([category, settings]) => (
              <Fragment key={category}>
                <dt>
                  Category <Name name={category} />
                </dt>
                <dd>{describe(settings, false)}</dd>
              </Fragment>
            ))}
          </dl>
        </section>
      )}
    </>
  );
}

function describe(settings: SchemaSettings, isDefault: boolean): string {
  // The default's unset members are the store's own: mode off, compatibility backward.
  const mode = settings.mode ?? (isDefault ? 'off' : 'inherited');
  const compatibility = settings.compatibility ?? (isDefault ? 'backward' : 'inherited');
  return `mode ${mode}, compatibility ${compatibility}`;
}

export function SchemaTypePage({ type }: { type: string }) {
  const { data, error } = useLoad((signal) => client.getSchemaType(type, { signal }), type, kRefreshMs);
  return (
    <>
      <h1>{type}</h1>
      <p>
        <a href={href(['schemas'])}>All schemas</a>
      </p>
      <ErrorAlert error={error} />
      {data && (
        <>
          <dl class="facts">
            <dt>Mode</dt>
            <dd>{setting(data.settings.mode)}</dd>
            <dt>Compatibility</dt>
            <dd>{setting(data.settings.compatibility)}</dd>
            <dt>Newest version</dt>
            <dd>{data.versions.at(-1)?.version ?? '–'}</dd>
          </dl>
          <section aria-labelledby="versions-heading">
            <h2 id="versions-heading">Versions</h2>
            {data.versions.map((v) => (
              <section key={v.version} class="panel" aria-labelledby={`version-${v.number}`}>
                <h3 id={`version-${v.number}`}>
                  {v.version} <span class="muted">(number {v.number}, registered <Time ms={v.registeredAt} />)</span>
                </h3>
                <pre class="json" tabIndex={0} role="region" aria-label={`Schema of ${v.version}`}>
                  {JSON.stringify(v.schema, null, 2)}
                </pre>
              </section>
            ))}
          </section>
          <section aria-labelledby="upcasters-heading">
            <h2 id="upcasters-heading">Upcasters</h2>
            {data.upcasters.length === 0 ? (
              <p>None: events of an older version are read as they were written.</p>
            ) : (
              <TableBox label="Upcasters">
                <thead>
                  <tr>
                    <th scope="col">From</th>
                    <th scope="col">To</th>
                    <th scope="col">Renames</th>
                    <th scope="col">Defaults</th>
                    <th scope="col">Patch</th>
                  </tr>
                </thead>
                <tbody>
                  {data.upcasters.map((u) => (
                    <tr key={u.from}>
                      <td>{u.from}</td>
                      <td>{u.to}</td>
                      <td class="mono">{JSON.stringify(u.renames ?? {})}</td>
                      <td class="mono">{JSON.stringify(u.defaults ?? {})}</td>
                      <td class="mono">{JSON.stringify(u.patch ?? [])}</td>
                    </tr>
                  ))}
                </tbody>
              </TableBox>
            )}
          </section>
        </>
      )}
    </>
  );
}
