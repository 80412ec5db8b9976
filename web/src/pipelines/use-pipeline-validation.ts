import { useEffect, useState } from 'react';
import { ApiError, errorMessage } from '../api/client';
import { toProblems, type PipelineProblem } from './pipeline-problems';
import { validatePipeline } from './pipelines-api';
import type { PipelineDraft } from './pipeline-draft';

/** What the server said of one definition. */
export type ValidationOutcome = { status: 'valid'; warnings: PipelineProblem[] } | { status: 'invalid'; problems: PipelineProblem[] } | { status: 'unreachable'; message: string };

/** How long typing must pause before the definition is sent to be checked. */
const PAUSE_MS = 400;

/**
 * The server's verdict on the definition being edited (PIPE-1 editor), asked once typing pauses: the
 * validate route runs the very checks a save runs, so what the form shows is what a save would say.
 * Each answer is kept with the definition it is about; until the answer for the current definition is
 * in, the state is `checking` (an older answer never passes for a newer definition).
 */
export function usePipelineValidation(ws: string, draft: PipelineDraft | null): {
  outcome: ValidationOutcome | { status: 'checking' } | null;
  /** A save's 400 is the same verdict: it replaces the one for that definition. */
  record: (draft: PipelineDraft, outcome: ValidationOutcome) => void;
} {
  const key = draft === null ? null : JSON.stringify(draft);
  const [answer, setAnswer] = useState<{ key: string; outcome: ValidationOutcome } | null>(null);
  useEffect(() => {
    if (key === null) return undefined;
    let current = true;
    const timer = setTimeout(() => {
      validatePipeline(ws, JSON.parse(key))
        .then((result) => ({ status: 'valid' as const, warnings: toProblems(result.warnings) }))
        .catch((error: unknown) => outcomeOfError(error))
        .then((outcome) => {
          if (current) setAnswer({ key, outcome });
        });
    }, PAUSE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [ws, key]);
  const outcome = key === null ? null : answer?.key === key ? answer.outcome : { status: 'checking' as const };
  return { outcome, record: (recorded, result) => setAnswer({ key: JSON.stringify(recorded), outcome: result }) };
}

/** A refused definition (400 with its issues), or a server that could not be asked. */
export function outcomeOfError(error: unknown): ValidationOutcome {
  if (error instanceof ApiError && error.status === 400 && error.issues.length > 0) return { status: 'invalid', problems: toProblems(error.issues) };
  return { status: 'unreachable', message: errorMessage(error) };
}
