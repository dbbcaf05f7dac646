// The console's entry: session (whoami), layout and the hash router.

import 'uplot/dist/uPlot.min.css';
import './style.css';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { IndelibleError } from '@indelible/client';
import { client, failure, setCredential, setUnauthorizedHandler } from './client';
import { maySomewhere, type WhoAmI } from './auth';
import { ErrorAlert } from './components/ErrorAlert';
import { EventSearch } from './components/EventSearch';
import { AppendPage } from './pages/Append';
import { ConsumerPage } from './pages/Consumer';
import { ConsumersPage } from './pages/Consumers';
import { SchemasPage, SchemaTypePage } from './pages/Schemas';
import { DashboardPage } from './pages/Dashboard';
import { EventPage } from './pages/Event';
import { NotFoundPage } from './pages/NotFound';
import { SignInPage } from './pages/SignIn';
import { StreamPage } from './pages/Stream';
import { StreamsPage } from './pages/Streams';
import { TailPage } from './pages/Tail';
import { navigate, useRoute, type Route } from './router';
import { SessionContext } from './session';
import { applyTheme, currentTheme, storedTheme, type Theme } from './theme';

const kSignIn = '#/sign-in';

function App() {
  const route = useRoute();
  const [who, setWho] = useState<WhoAmI | null>(null);
  // Until /auth/whoami answers, "no principal" means "not known yet", not "signed out".
  const [checking, setChecking] = useState(true);
  const [error, setError] = useState<IndelibleError | null>(null);
  const [theme, setTheme] = useState<Theme>(currentTheme);

  useEffect(() => {
    // A 401 anywhere: every page then shows the sign-in form in its place and
    // keeps its address, so signing in opens the page that was asked for.
    setUnauthorizedHandler(() => {
      setWho(null);
      setChecking(false);
    });
    client
      .whoami()
      .then(setWho, (e) => {
        const failed = failure(e);
        if (failed.status !== 401) setError(failed); // a 401 already signed out
      })
      .finally(() => setChecking(false));
    // Follow the system while the user has not picked a theme.
    const media = matchMedia('(prefers-color-scheme: dark)');
    const follow = () => storedTheme() || setTheme(currentTheme());
    media.addEventListener('change', follow);
    return () => media.removeEventListener('change', follow);
  }, []);

  // A new page: focus moves to its <main>, so a screen reader reads it and
  // Tab starts there, as after a full page load. A new query of the same
  // page (the next page of events) leaves focus where it is, unless the
  // focused element went with the old content (a search re-keys its page):
  // then <main> takes it rather than the document's body.
  const pagePath = route.segments.join('/');
  const shownPath = useRef<string | null>(null);
  useEffect(() => {
    const first = shownPath.current === null;
    const newPage = shownPath.current !== pagePath;
    shownPath.current = pagePath;
    if (first) return;
    const active = document.activeElement;
    if (newPage || !active || active === document.body) document.getElementById('main')?.focus();
  }, [pagePath, route.params.toString()]);

  const toggleTheme = () => {
    const next: Theme = theme === 'dark' ? 'light' : 'dark';
    applyTheme(next);
    setTheme(next);
  };
  const signOut = () => {
    setCredential(null);
    setWho(null);
    navigate(kSignIn);
  };
  const onSignIn = route.segments[0] === 'sign-in';
  const onSignedIn = (signedIn: WhoAmI) => {
    setWho(signedIn);
    setError(null);
    if (onSignIn) navigate('#/');
  };

  let page;
  if (onSignIn || (!who && !checking && !error)) page = <SignInPage onSignedIn={onSignedIn} />;
  else if (who) page = <Page route={route} theme={theme} />;
  else if (error) page = <ErrorAlert error={error} />;
  else page = <p>Loading…</p>;

  return (
    <SessionContext.Provider value={who ?? { authentication: false }}>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="#/">
          indelible <span>console</span>
        </a>
        <Nav route={route} who={who} />
        {who && <EventSearch />}
        <div class="session">
          <button type="button" onClick={toggleTheme} aria-pressed={theme === 'dark'}>
            Theme
          </button>
          {who?.authentication && (
            <>
              <span class="principal">{who.principal}</span>
              <button type="button" onClick={signOut}>
                Sign out
              </button>
            </>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </SessionContext.Provider>
  );
}

function Nav({ route, who }: { route: Route; who: WhoAmI | null }) {
  const section = route.segments[0] ?? '';
  const links: [string, string, string][] = [
    ['#/', 'Dashboard', ''],
    ['#/streams', 'Streams', 'streams'],
    ['#/tail', 'Live tail', 'tail'],
    ['#/consumers', 'Consumer groups', 'consumers'],
    ['#/schemas', 'Schemas', 'schemas'],
  ];
  // Hidden while no one is signed in and when the grants say no: a link to a
  // page that can only answer 401 or 403 helps no one.
  if (who && maySomewhere(who, 'write')) links.push(['#/append', 'Append', 'append']);
  return (
    <nav aria-label="Main">
      <ul>
        {links.map(([to, label, key]) => (
          <li key={key}>
            <a href={to} aria-current={section === key ? 'page' : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Page({ route, theme }: { route: Route; theme: Theme }) {
  const [section, name] = route.segments;
  const p = route.params;
  switch (section) {
    case undefined:
      return <DashboardPage theme={theme} />;
    case 'streams':
      // Keyed by the search, so its inputs show the search of the address, also after a nav click.
      return name === undefined ? <StreamsPage key={`${p.get('prefix')}|${p.get('category')}`} params={p} /> : <StreamPage stream={name} params={p} />;
    case 'events':
      return <EventPage position={name ?? ''} />;
    case 'tail':
      return <TailPage />;
    case 'consumers':
      return name === undefined ? <ConsumersPage /> : <ConsumerPage group={name} theme={theme} />;
    case 'schemas':
      return name === undefined ? <SchemasPage /> : <SchemaTypePage type={name} />;
    case 'append':
      return <AppendPage stream={p.get('stream') ?? ''} />;
    default:
      return <NotFoundPage />;
  }
}

applyTheme(storedTheme());
render(<App />, document.body);
