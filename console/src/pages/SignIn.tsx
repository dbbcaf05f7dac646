import { useState } from 'preact/hooks';
import type { IndelibleError } from '@indelible/client';
import { client, credential, failure, setCredential } from '../client';
import type { WhoAmI } from '../auth';
import { ErrorAlert } from '../components/ErrorAlert';

/** Asks for an API key or JWT, checks it with /auth/whoami, keeps it for this tab. */
export function SignInPage({ onSignedIn }: { onSignedIn: (who: WhoAmI) => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<IndelibleError | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const previous = credential();
    setCredential(value.trim());
    setBusy(true);
    try {
      onSignedIn(await client.whoami());
    } catch (e) {
      setCredential(previous);
      setError(failure(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>Sign in</h1>
      <p>The server asks for a credential. It is kept in this tab only (sessionStorage) and sent as a Bearer token.</p>
      <form class="form narrow" onSubmit={submit}>
        <label for="credential">API key or token</label>
        <input id="credential" type="password" autoComplete="off" required value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        <div class="buttons">
          <button type="submit" class="primary" disabled={busy}>
            Sign in
          </button>
        </div>
      </form>
      <ErrorAlert error={error} />
    </>
  );
}
