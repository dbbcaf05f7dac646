import type { ComponentChildren } from 'preact';

/**
 * A table that scrolls sideways inside its own box on a narrow screen. The
 * box is focusable (tabindex 0) so keyboard users can scroll it; axe then
 * wants it named, hence the label.
 */
export function TableBox({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-box" tabIndex={0} role="region" aria-label={`${label} table`}>
      <table aria-label={label}>{children}</table>
    </div>
  );
}
