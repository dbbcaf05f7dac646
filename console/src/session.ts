// Who is signed in, shared by every page through a context.

import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { WhoAmI } from './auth';

export const SessionContext = createContext<WhoAmI>({ authentication: false });

export function useWho(): WhoAmI {
  return useContext(SessionContext);
}
