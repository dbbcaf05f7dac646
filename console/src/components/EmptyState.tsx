// What an empty page says: what is missing, and what to do next.

import type { ComponentChildren } from 'preact';

export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children}
    </div>
  );
}

/** The server's base URL as the page reaches it, for commands to copy. */
export function serverUrl(): string {
  const at = location.pathname.lastIndexOf('/console/');
  return location.origin + (at < 0 ? '' : location.pathname.slice(0, at));
}
