import { useCallback, useEffect, useRef } from 'react';
import { setLeaveGuard } from './router';

/**
 * Leaving a page with unsaved edits asks first: in-app links and Back through the router's guard,
 * reload and close through the browser's own unload prompt.
 *
 * Returns `release`, for a page that leaves on purpose after its edits are gone (saved, or the
 * thing edited was deleted): it drops the guard at once, before the re-render that would.
 */
export function useUnsavedChangesGuard(active: boolean, question: string): () => void {
  const release = useRef<() => void>(() => undefined);
  useEffect(() => {
    if (!active) return undefined;
    const releaseRouterGuard = setLeaveGuard(() => window.confirm(question));
    const onUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onUnload);
    release.current = () => {
      releaseRouterGuard();
      window.removeEventListener('beforeunload', onUnload);
    };
    return release.current;
  }, [active, question]);
  // A stable function that releases whichever guard is in place when it is called.
  return useCallback(() => release.current(), []);
}
