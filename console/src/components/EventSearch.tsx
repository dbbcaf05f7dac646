// Find an event by its id (what a causationId names, or a log line) or its
// position, from any page: opens the event's page, which says when there is
// none.

import { useState } from 'preact/hooks';
import { href, navigate } from '../router';

export function EventSearch() {
  const [value, setValue] = useState('');
  const submit = (e: Event) => {
    e.preventDefault();
    const key = value.trim();
    if (key !== '') navigate(href(['events', key]));
  };
  return (
    <form class="event-search" role="search" aria-label="Find an event" onSubmit={submit}>
      <label for="event-search" class="visually-hidden">
        Event id or position
      </label>
      <input id="event-search" type="search" placeholder="Event id or position" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      <button type="submit">Find</button>
    </form>
  );
}
