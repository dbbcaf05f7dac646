// One consumer group: its status, and the operator's actions on a blocked
// or parked group, each behind a confirmation.

import { useState } from 'preact/hooks';
import { ApiError, getJson, postJson, seg } from '../api';
import { may } from '../auth';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorAlert } from '../components/ErrorAlert';
import { number } from '../format';
import { asApiError, useLoad } from '../hooks';
import { href } from '../router';
import { useWho } from '../session';
import type { ConsumerStatus } from '../types';

const kRefreshMs = 2000;

interface Action {
  path: 'retry' | 'skip' | 'replay';
  question: string;
  detail: string;
}

const kRetry: Action = { path: 'retry', question: 'Retry the blocked event?', detail: 'It is delivered again, its attempts counted afresh.' };
const kSkip: Action = { path: 'skip', question: 'Skip the blocked event?', detail: 'It counts as acknowledged: no worker will see it again.' };
const kReplay: Action = { path: 'replay', question: 'Replay the parked events?', detail: 'They are delivered again, before new events.' };

export function ConsumerPage({ group }: { group: string }) {
  const who = useWho();
  const { data, error, reload } = useLoad((signal) => getJson<ConsumerStatus>(`/consumers/${seg(group)}`, signal), group, kRefreshMs);
  const [asking, setAsking] = useState<Action | null>(null);
  const [actionError, setActionError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const allowed = may(who, 'consumers', group);

  const confirm = async (action: Action) => {
    setAsking(null);
    setDone(null);
    try {
      await postJson<ConsumerStatus>(`/consumers/${seg(group)}/${action.path}`);
      setActionError(null);
      setDone(`${action.path === 'replay' ? 'Replay' : action.path === 'retry' ? 'Retry' : 'Skip'} done.`);
    } catch (e) {
      setActionError(asApiError(e));
    }
    reload();
  };

  const status = data;
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
                  <button type="button" onClick={() => setAsking(kRetry)}>
                    Retry
                  </button>
                  <button type="button" onClick={() => setAsking(kSkip)}>
                    Skip
                  </button>
                </div>
              )}
            </section>
          )}
          {status.parked.events > 0 && (
            <section aria-labelledby="parked-heading" class="panel">
              <h2 id="parked-heading">Parked</h2>
              <p>
                {status.parked.events} parked events in the stream{' '}
                <a class="wrap" href={href(['streams', `$parked-${group}`])}>{`$parked-${group}`}</a>.
              </p>
              {allowed && (
                <div class="buttons">
                  <button type="button" onClick={() => setAsking(kReplay)}>
                    Replay parked
                  </button>
                </div>
              )}
            </section>
          )}
        </>
      )}
      {asking && <ConfirmDialog question={asking.question} detail={asking.detail} onConfirm={() => void confirm(asking)} onCancel={() => setAsking(null)} />}
    </>
  );
}
