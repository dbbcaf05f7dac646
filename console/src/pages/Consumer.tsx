// One consumer group: its status, its lag explained and charted, its
// members, and the operator's actions on a blocked or parked group (the
// blocked event, every parked event, or one parked event at a time), each
// behind a confirmation.

import { useState } from 'preact/hooks';
import type { IndelibleError } from '@indelible/client';
import { client, failure } from '../client';
import { may } from '../auth';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ConsumerMembers } from '../components/ConsumerMembers';
import { LagPanel, useLagHistory } from '../components/ConsumerLag';
import { ErrorAlert } from '../components/ErrorAlert';
import { ParkedEvents, type ParkedAction } from '../components/ParkedEvents';
import { number } from '../format';
import { useLoad } from '../hooks';
import { href } from '../router';
import { useWho } from '../session';

const kRefreshMs = 2000;

interface Action {
  question: string;
  detail: string;
  done: string;
  run: () => Promise<unknown>;
}

function groupActions(group: string) {
  return {
    retry: { question: 'Retry the blocked event?', detail: 'It is delivered again, its attempts counted afresh.', done: 'Retry done.', run: () => client.consumers.retry(group) },
    skip: { question: 'Skip the blocked event?', detail: 'It counts as acknowledged: no worker will see it again.', done: 'Skip done.', run: () => client.consumers.skip(group) },
    replay: { question: 'Replay the parked events?', detail: 'They are delivered again, before new events.', done: 'Replay done.', run: () => client.consumers.replay(group) },
  } satisfies Record<string, Action>;
}

function parkedAction(group: string, { kind, parked }: ParkedAction): Action {
  const v = parked.parkedVersion;
  if (kind === 'retry') {
    return {
      question: `Retry parked event ${v}?`,
      detail: 'It alone is delivered again, before new events; once a worker acknowledges it, it is resolved.',
      done: `Retry of parked event ${v} done.`,
      run: () => client.consumers.retryParked(group, v),
    };
  }
  return {
    question: `Skip parked event ${v}?`,
    detail: 'No replay will deliver it. If it was the last pending one of its stream, the stream’s new events flow again.',
    done: `Skip of parked event ${v} done.`,
    run: () => client.consumers.skipParked(group, v),
  };
}

export function ConsumerPage({ group, theme }: { group: string; theme: string }) {
  const who = useWho();
  const { data: status, error, reload } = useLoad((signal) => client.consumers.get(group, { signal }), group, kRefreshMs);
  const [asking, setAsking] = useState<Action | null>(null);
  const [actionError, setActionError] = useState<IndelibleError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const allowed = may(who, 'consumers', group);
  const history = useLagHistory(group, status);
  const actions = groupActions(group);

  const confirm = async (action: Action) => {
    setAsking(null);
    setDone(null);
    try {
      await action.run();
      setActionError(null);
      setDone(action.done);
    } catch (e) {
      setActionError(failure(e));
    }
    reload();
    setGeneration((g) => g + 1);
  };

  return (
    <>
      <h1>{group}</h1>
      <ErrorAlert error={error} />
      <ErrorAlert error={actionError} />
      {done && (
        <p role="status" class="ok">
          {done}
        </p>
      )}
      {status && (
        <>
          <dl class="facts">
            <dt>Checkpoint</dt>
            <dd>{status.checkpoint}</dd>
            <dt>Last position</dt>
            <dd>{status.lastPosition}</dd>
            <dt>Lag (events)</dt>
            <dd>{status.lagEvents}</dd>
            <dt>Lag (seconds)</dt>
            <dd>{number(status.lagSeconds, 1)}</dd>
            <dt>In flight</dt>
            <dd>{status.inFlight}</dd>
            <dt>Redeliveries</dt>
            <dd>{status.redeliveries}</dd>
            <dt>Blocked</dt>
            <dd>{status.blocked ? 'yes' : 'no'}</dd>
            <dt>Parked</dt>
            <dd>
              {status.parked.events} events in {status.parked.streams} streams{status.parked.replaying ? ', replaying' : ''}
            </dd>
          </dl>
          {status.blocked && (
            <section aria-labelledby="blocked-heading" class="panel">
              <h2 id="blocked-heading">Blocked</h2>
              <p>
                At position <a href={href(['events', status.blocked.position])}>{status.blocked.position}</a>: {status.blocked.reason}
              </p>
              {allowed && (
                <div class="buttons">
                  <button type="button" onClick={() => setAsking(actions.retry)}>
                    Retry
                  </button>
                  <button type="button" onClick={() => setAsking(actions.skip)}>
                    Skip
                  </button>
                </div>
              )}
            </section>
          )}
          <LagPanel status={status} history={history} theme={theme} />
          <ConsumerMembers members={status.members ?? []} omitted={status.membersOmitted === true} />
          <section aria-labelledby="parked-heading" class="panel">
            <h2 id="parked-heading">Parked</h2>
            {status.parked.events > 0 && (
              <p>
                {status.parked.events} parked events in {status.parked.streams} streams, kept in the stream{' '}
                <a class="wrap" href={href(['streams', `$parked-${group}`])}>{`$parked-${group}`}</a>. A stream with a parked event holds its later events
                back until nothing of it is pending: retry or skip them one by one, or replay them all.
              </p>
            )}
            {allowed && status.parked.events > 0 && (
              <div class="buttons">
                <button type="button" onClick={() => setAsking(actions.replay)}>
                  Replay parked
                </button>
              </div>
            )}
            <ParkedEvents group={group} canAct={allowed} generation={generation} onAction={(a) => setAsking(parkedAction(group, a))} />
          </section>
        </>
      )}
      {asking && <ConfirmDialog question={asking.question} detail={asking.detail} onConfirm={() => void confirm(asking)} onCancel={() => setAsking(null)} />}
    </>
  );
}
