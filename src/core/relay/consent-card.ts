/** The question every consent card ends with (RLY-6 relay actions, RLY-7 "Copilot wants to run: …"). */
export const CONSENT_QUESTION_ENDING = 'Approve this action?';

/**
 * Whether a question card asks for consent rather than for information. Such a card is the operator's
 * to answer: relay_tool refuses to answer it from another conversation, or one agent could approve
 * another's (or its own) action (POL-1, POL-4). Recognised by its wording or by an "Approve" option,
 * so a transport's own consent card (Copilot's) is covered without registering it anywhere.
 */
export function isConsentCard(questions: ReadonlyArray<{ question: string; options?: readonly string[] | undefined }>): boolean {
  return questions.some(
    (question) =>
      question.question.trimEnd().toLowerCase().endsWith(CONSENT_QUESTION_ENDING.toLowerCase()) ||
      (question.options ?? []).some((option) => /^\s*approve\b/i.test(option)),
  );
}
