// A time as operators read it: relative ("3 min ago"), the exact UTC time
// on hover and for screen readers and copying (<time datetime>). One shared
// clock re-renders every shown time each 15 s, so "just now" does not stay.

import { useEffect, useState } from 'preact/hooks';
import { isoTime, relativeTime } from '../format';

const kTickMs = 15_000;
const listeners = new Set<(now: number) => void>();
let ticker = 0;

function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    listeners.add(setNow);
    if (listeners.size === 1) ticker = window.setInterval(() => listeners.forEach((f) => f(Date.now())), kTickMs);
    return () => {
      listeners.delete(setNow);
      if (listeners.size === 0) window.clearInterval(ticker);
    };
  }, []);
  return now;
}

export function Time({ ms }: { ms: number }) {
  const now = useNow();
  const exact = isoTime(ms);
  return (
    <time dateTime={exact} title={exact}>
      {relativeTime(ms, now)}
    </time>
  );
}
