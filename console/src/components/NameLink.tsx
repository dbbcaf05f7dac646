/**
 * A stream or group name, or an event type, in a table cell. A name may be
 * 256 bytes: shown whole, one such name would widen its column for every
 * row and push the other columns out of sight. So the cell cuts it with an
 * ellipsis (style.css, `.name`); the title shows it whole on hover, and the
 * text (and a link's address) keep it whole for screen readers and copying.
 */
export function NameLink({ to, name }: { to: string; name: string }) {
  return (
    <a class="name" href={to} title={name}>
      {name}
    </a>
  );
}

export function Name({ name }: { name: string }) {
  return (
    <span class="name" title={name}>
      {name}
    </span>
  );
}
