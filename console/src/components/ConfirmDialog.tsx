// A modal confirmation: the native <dialog> traps focus and closes on Escape.

import { useEffect, useRef } from 'preact/hooks';

export interface ConfirmProps {
  question: string; // the dialog's accessible name, e.g. "Retry the blocked event?"
  detail?: string;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({ question, detail, onConfirm, onCancel }: ConfirmProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="confirm-question" onCancel={(e) => (e.preventDefault(), onCancel())}>
      <h2 id="confirm-question">{question}</h2>
      {detail && <p>{detail}</p>}
      <div class="buttons">
        <button type="button" class="primary" onClick={onConfirm}>
          Confirm
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
