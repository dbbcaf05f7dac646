import type { IndelibleError } from '@indelible/client';
import { describeFailure } from '../client';

/** A failed call in plain words: status, error and message, never a stack. */
export function ErrorAlert({ error }: { error: IndelibleError | string | null }) {
  if (!error) return null;
  const text = typeof error === 'string' ? error : describeFailure(error);
  return (
    <p role="alert" class="alert">
      {text}
    </p>
  );
}
