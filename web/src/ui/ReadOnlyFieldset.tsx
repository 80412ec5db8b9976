import type { ReactNode } from 'react';

/**
 * TEAM-2: the controls inside are shown but cannot be used when `readOnly` (a disabled fieldset
 * disables every input and button in it), so a person without the role reads the settings as they
 * are instead of editing what the server would refuse to save. Drawn without a frame of its own.
 */
export function ReadOnlyFieldset({ readOnly, children }: { readOnly: boolean; children: ReactNode }) {
  return (
    <fieldset disabled={readOnly} className="read-only-fieldset" style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
      {children}
    </fieldset>
  );
}
