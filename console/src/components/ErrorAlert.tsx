import type { ApiError } from '../api';

/** A failed call in plain words: status, error and message, never a stack. */
export function ErrorAlert({ error }: { error: ApiError | string | null }) {
  if (!error) return null;
  const text = typeof error === 'string' ? error : error.describe();
  return (
    <p role="alert" class="alert">
      {text}
    </p>
  );
}
