// What an empty page says: what is missing, and what to do next.

import type { ComponentChildren } from 'preact';
import { apiBase } from '../api-base';

export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children}
    </div>
  );
}

/** The server's base URL as the page reaches it, for commands to copy (no trailing slash). */
export function serverUrl(): string {
  return apiBase(location.origin, location.pathname).replace(/\/$/, '');
}
