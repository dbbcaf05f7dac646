// One consumer group: its status, and the operator's actions on a blocked
// or parked group, each behind a confirmation.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { ConsumerStatus } from '@indelible/client';
import type { IndelibleError } from '@indelible/client';
import { client, failure } from '../client';
import { may } from '../auth';
import { Chart } from '../components/Chart';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorAlert } from '../components/ErrorAlert';
import { number } from '../format';
import { useLoad } from '../hooks';
import { href } from '../router';
import { useWho } from '../session';

const kRefreshMs = 2000;

interface Action {
  path: 'retry' | 'skip' | 'replay';
  question: string;
  detail: string;
}

const kRetry: Action = { path: 'retry', question: 'Retry the blocked event?', detail: 'It is delivered again, its attempts counted afresh.' };
const kSkip: Action = { path: 'skip', question: 'Skip the blocked event?', detail: 'It counts as acknowledged: no worker will see it again.' };
const kReplay: Action = { path: 'replay', question: 'Replay the parked events?', detail: 'They are delivered again, before new events.' };

export function ConsumerPage({ group, theme }: { group: string; theme: string }) {
  const who = useWho();
  const { data, error, reload } = useLoad((signal) => client.consumers.get(group, { signal }), group, kRefreshMs);
  const [asking, setAsking] = useState<Action | null>(null);
  const [actionError, setActionError] = useState<IndelibleError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const allowed = may(who, 'consumers', group);
  const history = useLagHistory(group, data);

  const confirm = async (action: Action) => {
    setAsking(null);
    setDone(null);
    try {
      await client.consumers[action.path](group);
      setActionError(null);
      setDone(`${action.path === 'replay' ? 'Replay' : action.path === 'retry' ? 'Retry' : 'Skip'} done.`);
    } catch (e) {
      setActionError(failure(e));
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
          <LagPanel status={status} history={history} theme={theme} />
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

const kHistorySeconds = 10 * 60;

interface LagHistory {
  time: number[]; // Unix seconds
  events: number[];
  seconds: number[];
}

/** The group's lag at each poll since the page opened (the last 10 minutes): the server keeps no history. */
function useLagHistory(group: string, status: ConsumerStatus | null): LagHistory {
  const history = useRef<LagHistory>({ time: [], events: [], seconds: [] });
  const [shown, setShown] = useState<LagHistory>(history.current);
  useEffect(() => {
    history.current = { time: [], events: [], seconds: [] };
    setShown(history.current);
  }, [group]);
  useEffect(() => {
    if (!status) return;
    const now = Date.now() / 1000;
    const h = history.current;
    const keep = h.time.findIndex((t) => now - t <= kHistorySeconds);
    const from = keep < 0 ? h.time.length : keep;
    history.current = {
      time: [...h.time.slice(from), now],
      events: [...h.events.slice(from), status.lagEvents],
      seconds: [...h.seconds.slice(from), status.lagSeconds],
    };
    setShown(history.current);
  }, [status]);
  return shown;
}

function LagPanel({ status, history, theme }: { status: ConsumerStatus; history: LagHistory; theme: string }) {
  return (
    <section aria-labelledby="lag-heading" class="panel">
      <h2 id="lag-heading">Lag</h2>
      <dl class="explained">
        <dt>Lag (events): {number(status.lagEvents)}</dt>
        <dd>
          The store's last position ({number(status.lastPosition)}) minus the group's checkpoint ({number(status.checkpoint)}): every event committed after the
          checkpoint, those the group's filter leaves out included, so the work left is at most this. 0 when the group has caught up.
        </dd>
        <dt>Lag (seconds): {number(status.lagSeconds, 1)}</dt>
        <dd>
          How long the oldest event the group holds and no worker has acknowledged has waited since it was committed; 0 when it holds none. Growing while
          events are in flight: workers are slow or stuck; growing with nothing in flight: no worker is pulling.
        </dd>
        <dt>Checkpoint</dt>
        <dd>
          Every event at or below it was acknowledged or filtered out. Saved at most every 100 ms, so after a crash the events acknowledged since are delivered
          again (at least once).
        </dd>
      </dl>
      {history.time.length > 0 && (
        <div class="charts">
          <Chart theme={theme} windowSeconds={kHistorySeconds} caption="Lag (events) while this page is open" series={['lag (events)']} data={[history.time, history.events]} />
          <Chart theme={theme} windowSeconds={kHistorySeconds} caption="Lag (seconds) while this page is open" series={['lag (seconds)']} data={[history.time, history.seconds]} />
        </div>
      )}
    </section>
  );
}
