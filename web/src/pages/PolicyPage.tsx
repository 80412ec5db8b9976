import { AUTONOMY_LEVELS } from '@server/core/modes';
import { useState, type FormEvent } from 'react';
import { ApiError, errorMessage } from '../api/client';
import { isProbeUrl, useCreateRule, useDeleteRule, usePolicyRules, useProbe } from '../api/control-hooks';
import { useAgents, useSpaces, useUpdateSpace } from '../api/hooks';
import type { Agent, PolicyRule, ProbeResult, Space } from '../api/types';
import { autonomyExplained, autonomyWord, decisionWord, EFFECT_KINDS, effectWord, scopeWord } from '../ui/words';
import { Empty, ErrorState, FieldError, Loading } from '../ui/states';
import { SettingsNav } from './SettingsNav';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { ReadOnlyFieldset } from '../ui/ReadOnlyFieldset';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { usePersonName } from '../settings/people/people-hooks';

/** "remembered: git push origin main" → "git push origin main" (the note the server writes, POL-3). */
const REMEMBERED = /^remembered:\s*/;

/** A rule's match as a phrase: "Commands starting with “git push”", "Actions that push to a remote". */
export function ruleMatchWords(rule: PolicyRule): string {
  switch (rule.match.kind) {
    case 'command':
      return `Commands starting with “${rule.match.prefix}”`;
    case 'class':
      return `Anything that ${effectWord(rule.match.effectClass)}`;
    case 'domain':
      return domainWords(rule.match.domain);
    case 'fingerprint':
      return rule.note ? `“${rule.note.replace(REMEMBERED, '')}”` : 'One remembered action';
  }
}

/** A domain pattern (TOOL-1) as a phrase: `*` every host, `*.example.com` its subdomains, else the host itself. */
function domainWords(domain: string): string {
  if (domain === '*') return 'Web pages on any host';
  if (domain.startsWith('*.')) return `Web pages on subdomains of “${domain.slice(2)}”`;
  return `Web pages on “${domain}”`;
}

function scopeName(rule: PolicyRule, spaces: Space[], agents: Agent[]): string {
  if (rule.scope === 'workspace') return 'This workspace';
  if (rule.scope === 'space') return `Space “${spaces.find((space) => space.id === rule.scopeId)?.name ?? 'deleted space'}”`;
  return `Agent “${agents.find((agent) => agent.id === rule.scopeId)?.name ?? 'deleted agent'}”`;
}

/**
 * Settings → Policy (POL-3..5): the autonomy dial of every space, a probe that says which rule would
 * decide a typed command and why, the rules of every scope (create, delete) and remembered choices.
 */
export function PolicyPage({ ws }: { ws: string }) {
  const { role, canAdminister } = useWorkspaceRole(ws);
  const rules = usePolicyRules(ws);
  const spaces = useSpaces(ws);
  const agents = useAgents(ws);
  const spaceList = spaces.data?.spaces ?? [];
  const agentList = agents.data?.agents ?? [];
  const all = rules.data?.rules ?? [];
  const written = all.filter((rule) => rule.match.kind !== 'fingerprint');
  const remembered = all.filter((rule) => rule.match.kind === 'fingerprint');
  return (
    <div className="page-with-subnav">
      <SettingsNav ws={ws} active="policy" />
      <main className="page narrow policy-page">
        <h2>Policy</h2>
        <p className="muted">What agents may do without asking. The most specific rule wins: agent, then space, then workspace, then the built-in defaults.</p>
        {canAdminister ? null : <ReadOnlyNote role={role} needs="admin" what="changing policy" />}
        <ReadOnlyFieldset readOnly={!canAdminister}>
          <AutonomyDial ws={ws} spaces={spaceList} loading={spaces.isPending} />
        </ReadOnlyFieldset>
        <Probe ws={ws} spaces={spaceList} agents={agentList} rules={all} />
        <ReadOnlyFieldset readOnly={!canAdminister}>
        <section aria-labelledby="rules-title">
          <h3 id="rules-title">Rules</h3>
          {rules.isPending ? (
            <Loading label="Loading rules…" />
          ) : rules.isError ? (
            <ErrorState error={rules.error} what="Policy rules" retry={() => void rules.refetch()} />
          ) : written.length === 0 ? (
            <Empty title="No rules yet">The built-in defaults apply: risky actions ask you first.</Empty>
          ) : (
            <RuleTable ws={ws} rules={written} spaces={spaceList} agents={agentList} label="Rules" />
          )}
          {canAdminister ? <NewRuleForm ws={ws} spaces={spaceList} agents={agentList} /> : null}
        </section>
        <section aria-labelledby="remembered-title">
          <h3 id="remembered-title">Remembered choices</h3>
          <p className="muted small">Made with “Remember this choice” on an approval. Forget one and the agent asks again next time.</p>
          {rules.isSuccess && remembered.length === 0 ? (
            <Empty title="Nothing remembered" />
          ) : (
            <RuleTable ws={ws} rules={remembered} spaces={spaceList} agents={agentList} label="Remembered choices" forget />
          )}
        </section>
        </ReadOnlyFieldset>
      </main>
    </div>
  );
}

function AutonomyDial({ ws, spaces, loading }: { ws: string; spaces: Space[]; loading: boolean }) {
  const update = useUpdateSpace(ws);
  const [error, setError] = useState<{ spaceId: string; message: string } | null>(null);
  // The level just clicked, set in the click's own handler: React re-renders a controlled radio right
  // after the event, before the mutation's pending state reaches this component, and would otherwise
  // put the old level back for a moment (a click that seems to do nothing).
  const [chosen, setChosen] = useState<{ spaceId: string; level: string } | null>(null);
  return (
    <section aria-labelledby="autonomy-title">
      <h3 id="autonomy-title">Autonomy of each space</h3>
      <ul className="autonomy-legend small muted">
        {AUTONOMY_LEVELS.map((level) => (
          <li key={level}>
            <strong>{autonomyWord(level)}</strong> — {autonomyExplained(level)}
          </li>
        ))}
      </ul>
      {loading ? <Loading label="Loading spaces…" /> : null}
      {!loading && spaces.length === 0 ? <Empty title="No spaces yet" /> : null}
      {spaces.map((space) => {
        // The level being saved shows at once (the radios are controlled: without this a click would
        // appear to do nothing until the server answers, and then jump).
        const saving = chosen?.spaceId === space.id ? chosen.level : update.isPending && update.variables?.spaceId === space.id ? (update.variables.patch.autonomy as string) : null;
        const shown = saving ?? space.autonomy;
        return (
          <fieldset key={space.id} className="autonomy-dial">
            <legend>{space.name}</legend>
            <div className="dial" role="radiogroup" aria-label={`Autonomy of ${space.name}`}>
              {AUTONOMY_LEVELS.map((level) => (
                <label key={level} className={`dial-stop${shown === level ? ' active' : ''}`}>
                  <input
                    type="radio"
                    name={`autonomy-${space.id}`}
                    value={level}
                    checked={shown === level}
                    disabled={update.isPending}
                    onChange={() => {
                      setError(null);
                      setChosen({ spaceId: space.id, level });
                      update.mutate(
                        { spaceId: space.id, patch: { autonomy: level } },
                        {
                          onError: (caught) => setError({ spaceId: space.id, message: errorMessage(caught) }),
                          // After onSuccess wrote the saved space into the cache (or the error was shown): the server's level shows.
                          onSettled: () => setChosen(null),
                        },
                      );
                    }}
                  />
                  {autonomyWord(level)}
                </label>
              ))}
            </div>
            {error?.spaceId === space.id ? <FieldError message={error.message} /> : null}
          </fieldset>
        );
      })}
    </section>
  );
}

/** The probe (POL-3, TOOL-1): type a command or a URL, see the decision, the rule behind it and why, in plain words. */
function Probe({ ws, spaces, agents, rules }: { ws: string; spaces: Space[]; agents: Agent[]; rules: PolicyRule[] }) {
  const probe = useProbe(ws);
  const [command, setCommand] = useState('');
  const [spaceId, setSpaceId] = useState('');
  const [agentId, setAgentId] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    probe.mutate({ command, spaceId, agentId });
  };
  const error = probe.error instanceof ApiError ? probe.error : null;
  return (
    <section aria-labelledby="probe-title">
      <h3 id="probe-title">Try a command or a web address</h3>
      <form className="probe-form" onSubmit={submit} noValidate aria-label="Try a command">
        <label className="field-label" htmlFor="probe-command">
          Command
        </label>
        <input
          id="probe-command"
          className="input mono"
          value={command}
          placeholder="git push origin main — or https://docs.example.com/guide"
          onChange={(event) => setCommand(event.target.value)}
          aria-invalid={Boolean(error?.messageFor('command') ?? error?.messageFor('url'))}
        />
        <div className="probe-where">
          <label>
            In space{' '}
            <select className="input" value={spaceId} onChange={(event) => setSpaceId(event.target.value)}>
              <option value="">any (workspace rules only)</option>
              {spaces.map((space) => (
                <option key={space.id} value={space.id}>
                  {space.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            By agent{' '}
            <select className="input" value={agentId} onChange={(event) => setAgentId(event.target.value)}>
              <option value="">any</option>
              {agents.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="btn btn-primary btn-small" disabled={probe.isPending}>
            Check
          </button>
        </div>
        {probe.isError ? <FieldError message={errorMessage(probe.error)} /> : null}
      </form>
      {probe.data ? <ProbeAnswer result={probe.data} rules={rules} spaces={spaces} agents={agents} command={probe.variables?.command ?? ''} /> : null}
    </section>
  );
}

/** The probe's verdict as the end of a sentence that starts with the command. */
const PROBE_VERDICT: Record<string, string> = { allow: 'would run without asking', ask: 'would ask you first', deny: 'would be refused' };

function ProbeAnswer({ result, rules, spaces, agents, command }: { result: ProbeResult; rules: PolicyRule[]; spaces: Space[]; agents: Agent[]; command: string }) {
  const rule = result.decidedBy.ruleId ? rules.find((entry) => entry.id === result.decidedBy.ruleId) : undefined;
  const url = isProbeUrl(command);
  const does = url
    ? result.hostNamedByRule
      ? 'Reading this page reaches the web. A rule names this host, so it may be reached even at a local or private address.'
      : 'Reading this page reaches the web. Local, private and metadata addresses stay refused unless a rule names this exact host.'
    : result.classes.length
      ? `It ${result.classes.map(effectWord).join(', ')}.`
      : 'It only reads: it changes nothing.';
  const why = rule
    ? `Decided by a rule of ${scopeName(rule, spaces, agents).replace(/^This workspace$/, 'this workspace')}: ${ruleMatchWords(rule)} → ${decisionWord(rule.decision)}.`
    : result.decidedBy.scope === 'autonomy'
      ? `Decided by the autonomy setting “${autonomyWord(result.autonomy)}”: ${autonomyExplained(result.autonomy)}`
      : `Decided by ${scopeWord(result.decidedBy.scope)}.`;
  return (
    <div className={`probe-answer decision-${result.decision}`} role="status" aria-live="polite" data-testid="probe-answer">
      <p>
        <code>{command}</code> <strong>{PROBE_VERDICT[result.decision] ?? decisionWord(result.decision)}</strong>.
      </p>
      <p>{does}</p>
      <p>{why}</p>
      <p className="muted small">Autonomy here: {autonomyWord(result.autonomy)}.</p>
    </div>
  );
}

function RuleTable({ ws, rules, spaces, agents, label, forget = false }: { ws: string; rules: PolicyRule[]; spaces: Space[]; agents: Agent[]; label: string; forget?: boolean }) {
  const remove = useDeleteRule(ws);
  const nameOf = usePersonName(ws);
  if (rules.length === 0) return null;
  return (
    <div className="table-scroll">
      <table className="table" aria-label={label}>
        <thead>
          <tr>
            <th>Where</th>
            <th>What</th>
            <th>Then</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rules.map((rule) => (
            <tr key={rule.id}>
              <td data-label="Where">{scopeName(rule, spaces, agents)}</td>
              <td data-label="What">
                {ruleMatchWords(rule)}
                {rule.note && rule.match.kind !== 'fingerprint' ? <div className="muted small">{rule.note}</div> : null}
                {/* TEAM-3: who added it (or remembered it), when that person is known here. */}
                {nameOf(rule.createdBy) ? <div className="muted small" data-testid="rule-author">{`${forget ? 'remembered' : 'added'} by ${nameOf(rule.createdBy)}`}</div> : null}
              </td>
              <td data-label="Then">{decisionWord(rule.decision)}</td>
              <td>
                <button type="button" className="btn btn-ghost-danger btn-small" disabled={remove.isPending} onClick={() => remove.mutate(rule.id)} aria-label={`${forget ? 'Forget' : 'Delete'} ${ruleMatchWords(rule)}`}>
                  {forget ? 'Forget' : 'Delete'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {remove.isError ? <FieldError message={errorMessage(remove.error)} /> : null}
    </div>
  );
}

function NewRuleForm({ ws, spaces, agents }: { ws: string; spaces: Space[]; agents: Agent[] }) {
  const create = useCreateRule(ws);
  const [scope, setScope] = useState<'workspace' | 'space' | 'agent'>('workspace');
  const [scopeId, setScopeId] = useState('');
  const [kind, setKind] = useState<'command' | 'class' | 'domain'>('command');
  const [prefix, setPrefix] = useState('');
  const [domain, setDomain] = useState('');
  const [effectClass, setEffectClass] = useState(EFFECT_KINDS[0] ?? 'fileDelete');
  const [decision, setDecision] = useState<'allow' | 'ask' | 'deny'>('ask');
  const [note, setNote] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await create.mutateAsync({
        scope,
        ...(scope === 'workspace' ? {} : { scopeId }),
        match: kind === 'command' ? { kind, prefix } : kind === 'domain' ? { kind, domain } : ({ kind, effectClass } as never),
        decision,
        ...(note.trim() ? { note: note.trim() } : {}),
      });
      setPrefix('');
      setDomain('');
      setNote('');
    } catch {
      // shown below from create.error
    }
  };
  const error = create.error instanceof ApiError ? create.error : null;
  const targets = scope === 'space' ? spaces.map((space) => ({ id: space.id, name: space.name })) : agents.map((agent) => ({ id: agent.id, name: agent.name }));
  return (
    <form className="editor rule-form" onSubmit={submit} noValidate aria-label="New rule">
      <h4>New rule</h4>
      <div className="rule-grid">
        <label>
          Applies to
          <select className="input" value={scope} onChange={(event) => { setScope(event.target.value as typeof scope); setScopeId(''); }}>
            <option value="workspace">The whole workspace</option>
            <option value="space">One space</option>
            <option value="agent">One agent</option>
          </select>
        </label>
        {scope !== 'workspace' ? (
          <label>
            {scope === 'space' ? 'Space' : 'Agent'}
            <select className="input" value={scopeId} onChange={(event) => setScopeId(event.target.value)} aria-invalid={Boolean(error?.messageFor('scopeId'))}>
              <option value="">Choose…</option>
              {targets.map((target) => (
                <option key={target.id} value={target.id}>
                  {target.name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          When
          <select className="input" value={kind} onChange={(event) => setKind(event.target.value as typeof kind)}>
            <option value="command">A command starts with…</option>
            <option value="class">Any action that…</option>
            <option value="domain">A web page is on…</option>
          </select>
        </label>
        {kind === 'domain' ? (
          <label>
            Web host
            <input className="input mono" value={domain} onChange={(event) => setDomain(event.target.value)} placeholder="docs.example.com, *.example.com or *" aria-invalid={Boolean(error?.messageFor('match.domain') ?? error?.messageFor('match'))} />
          </label>
        ) : kind === 'command' ? (
          <label>
            Command start
            <input className="input mono" value={prefix} onChange={(event) => setPrefix(event.target.value)} placeholder="npm publish" aria-invalid={Boolean(error?.messageFor('match'))} />
          </label>
        ) : (
          <label>
            Action kind
            <select className="input" value={effectClass} onChange={(event) => setEffectClass(event.target.value)}>
              {EFFECT_KINDS.map((effect) => (
                <option key={effect} value={effect}>
                  {effectWord(effect)}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          Then
          <select className="input" value={decision} onChange={(event) => setDecision(event.target.value as typeof decision)}>
            <option value="allow">Allow</option>
            <option value="ask">Ask me first</option>
            <option value="deny">Refuse</option>
          </select>
        </label>
        <label>
          Note (optional)
          <input className="input" value={note} onChange={(event) => setNote(event.target.value)} />
        </label>
      </div>
      {/* One voice: the field named, then what is wrong ("Scope: …"), under the form. */}
      {create.error ? <FieldError message={errorMessage(create.error)} /> : null}
      <button type="submit" className="btn btn-primary btn-small" disabled={create.isPending}>
        Add rule
      </button>
    </form>
  );
}
