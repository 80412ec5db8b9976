import { useEffect, useSyncExternalStore } from 'react';

/** How long a toast stays: long enough to read a sentence after glancing away, short enough not to pile up. */
const TOAST_MS = 10_000;

interface Toast {
  id: number;
  text: string;
}

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((listener) => listener());

/** Shows a short message at the corner of the screen; it goes by itself (or with its ✕). */
export function showToast(text: string): void {
  toasts = [...toasts, { id: nextId++, text }].slice(-4);
  changed();
}

function dismiss(id: number): void {
  toasts = toasts.filter((toast) => toast.id !== id);
  changed();
}

function ToastItem({ toast }: { toast: Toast }) {
  useEffect(() => {
    const timer = setTimeout(() => dismiss(toast.id), TOAST_MS);
    return () => clearTimeout(timer);
  }, [toast.id]);
  return (
    <li className="toast" data-testid="toast">
      <span>{toast.text}</span>
      <button type="button" className="btn btn-ghost btn-small" aria-label="Dismiss" onClick={() => dismiss(toast.id)}>
        ✕
      </button>
    </li>
  );
}

/** Where toasts appear; a polite live region, so a screen reader says them without interrupting. */
export function ToastRegion() {
  const shown = useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => toasts,
  );
  return (
    <ul className="toasts" role="status" aria-live="polite" aria-label="Notifications">
      {shown.map((toast) => (
        <ToastItem key={toast.id} toast={toast} />
      ))}
    </ul>
  );
}
