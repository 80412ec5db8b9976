import { useState, type FormEvent } from 'react';
import { errorMessage } from '../api/client';
import { useAnswerQuestion } from '../api/hooks';
import type { Agent, Question } from '../api/types';
import { paths } from '../app/router';
import { Link } from './link';
import { FieldError } from './states';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { OthersLooking } from './OthersLooking';
import { ReadOnlyNote } from './ReadOnlyNote';

const OTHER = '__other__';

function agentName(agents: Agent[] | undefined, agentId: string): string {
  return agents?.find((agent) => agent.id === agentId)?.name ?? 'The agent';
}

/** RLY-4 / PLAN-4: the agent's questions (up to three) as a form; options or free text. */
export function QuestionCard({ ws, question, agents, showLinks = false }: { ws: string; question: Question; agents?: Agent[]; showLinks?: boolean }) {
  const answer = useAnswerQuestion(ws);
  const { role, canDecide } = useWorkspaceRole(ws);
  const [choices, setChoices] = useState<string[]>(() => question.questions.map(() => ''));
  const [texts, setTexts] = useState<string[]>(() => question.questions.map(() => ''));

  const answers = question.questions.map((item, index) => {
    const choice = choices[index] ?? '';
    if (item.options?.length && choice !== OTHER) return choice;
    return (texts[index] ?? '').trim();
  });
  const complete = answers.every((value) => value !== '');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (complete && canDecide) answer.mutate({ id: question.id, answers });
  };

  return (
    <form className="question" onSubmit={submit} data-testid="question-card" aria-label="Questions from the agent">
      <header className="question-header">
        <strong>{agentName(agents, question.agentId)} is asking</strong>
        <span className="muted small">The run waits for your answer · {new Date(question.createdAt).toLocaleTimeString()}</span>
      </header>
      {showLinks ? (
        <div className="small">
          <Link to={paths.conversation(ws, question.conversationId)}>Open conversation</Link>
        </div>
      ) : null}
      <OthersLooking ws={ws} conversationId={question.conversationId} />
      {question.questions.map((item, index) => {
        const name = `${question.id}-${index}`;
        const hasOptions = Boolean(item.options?.length);
        return (
          <fieldset key={name} className="question-item">
            <legend>{item.question}</legend>
            {hasOptions
              ? [...(item.options ?? []), OTHER].map((option) => (
                  <label key={option} className="radio">
                    <input
                      type="radio"
                      name={name}
                      value={option}
                      checked={choices[index] === option}
                      onChange={() => setChoices((current) => current.map((value, at) => (at === index ? option : value)))}
                    />
                    {option === OTHER ? 'Something else…' : option}
                  </label>
                ))
              : null}
            {!hasOptions || choices[index] === OTHER ? (
              <input
                aria-label={hasOptions ? `Your own answer to: ${item.question}` : `Answer to: ${item.question}`}
                placeholder="Your answer"
                value={texts[index] ?? ''}
                onChange={(event) => setTexts((current) => current.map((value, at) => (at === index ? event.target.value : value)))}
              />
            ) : null}
          </fieldset>
        );
      })}
      {/* TEAM-2: answering is a decision, which a viewer may not make: no button the server would refuse. */}
      {canDecide ? (
        <div className="question-actions">
          <button type="submit" className="btn btn-primary btn-small" disabled={!complete || answer.isPending}>
            Send answer{question.questions.length > 1 ? 's' : ''}
          </button>
        </div>
      ) : (
        <ReadOnlyNote role={role} needs="member" what="answering" />
      )}
      {answer.isError ? <FieldError message={errorMessage(answer.error)} /> : null}
    </form>
  );
}
