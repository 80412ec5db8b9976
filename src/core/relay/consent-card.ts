/** The question every consent card ends with (RLY-6 relay actions, RLY-7 "Copilot wants to run: …"). */
export const CONSENT_QUESTION_ENDING = 'Approve this action?';

/** One question of a card as the consumers of consent cards read it. */
export interface CardQuestion {
  readonly question: string;
  readonly options?: readonly string[] | undefined;
  /** Set only by server code asking the operator to approve an action; never from an agent's input. */
  readonly consent?: boolean | undefined;
}

/** A question asking the operator to approve an action, as server code puts it on a card. */
export interface ConsentQuestion {
  question: string;
  options: string[];
  consent: true;
}

/**
 * The question of a consent card (RLY-6, RLY-7). The `consent` flag is structural: only server code
 * calls this, and every way an agent asks a question (ask_user, AskUserQuestion, Codex and Copilot
 * user-input requests) builds its question from the text and options alone, so an agent cannot set it
 * — whatever its question says.
 */
export function consentQuestion(question: string, options: string[]): ConsentQuestion {
  return { question, options, consent: true };
}

/**
 * Whether a question card asks for consent rather than for information. Such a card is the operator's
 * to answer: relay_tool refuses to answer it from another conversation, or one agent could approve
 * another's (or its own) action (POL-1, POL-4). Recognised by the structural flag only, never by its
 * wording or options: an agent's own question ending "Approve this action?" is still an agent's
 * question, and a server card keeps its flag whatever words it uses.
 */
export function isConsentCard(questions: ReadonlyArray<CardQuestion>): boolean {
  return questions.some((question) => question.consent === true);
}
