// Loading and polling, with the error kept for the alert.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { IndelibleError } from '@indelible/client';
import { failure } from './client';

export interface Loaded<T> {
  data: T | null;
  error: IndelibleError | null;
  reload: () => void;
}

/** Runs `load` when `key` changes and every `intervalMs` (if given); keeps the last good data. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, key: string, intervalMs?: number): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<IndelibleError | null>(null);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const keyRef = useRef(key);

  useEffect(() => {
    if (keyRef.current !== key) {
      keyRef.current = key;
      setData(null); // another page's data must not show under this one's heading
    }
    const controller = new AbortController();
    let timer: number | undefined;
    const run = async () => {
      try {
        const value = await loadRef.current(controller.signal);
        if (controller.signal.aborted) return;
        setData(value);
        setError(null);
      } catch (e) {
        if (controller.signal.aborted) return;
        setError(failure(e));
      }
      if (intervalMs && !controller.signal.aborted) timer = window.setTimeout(run, intervalMs);
    };
    void run();
    return () => {
      controller.abort();
      window.clearTimeout(timer);
    };
  }, [key, tick, intervalMs]);

  return { data, error, reload: () => setTick((t) => t + 1) };
}
