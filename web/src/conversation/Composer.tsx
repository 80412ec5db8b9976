import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { api, ApiError, errorMessage } from '../api/client';
import { writeFresherEntity, writeFresherSpace } from '../api/fresher-write';
import { useRunControls } from '../api/control-hooks';
import { useAgents, useHonestyMatrix, useSendMessage } from '../api/hooks';
import { keys } from '../api/keys';
import type { PickerValue, Space } from '../api/types';
import { isPickerValue, nextPicker, PICKER_HINTS, PICKER_VALUES, rememberPicker, spaceModeLabel } from '../app/picker';
import { paths } from '../app/router';
import { Link } from '../ui/link';
import { FieldError } from '../ui/states';
import { transportIgnoringAutonomy, transportWithoutModes } from './answering-transport';
import { AttachButton, AttachmentTray, useComposerAttachments } from './ComposerAttachments';

/** A held message, quoted in the composer's note: its first line, shortened. */
const excerpt = (text: string) => {
  const line = text.split('\n')[0]!;
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
};

const SLASH_HINTS = [
  { command: '/plan', hint: 'arm Plan mode, send nothing' },
  { command: '/plan <request>', hint: 'arm Plan mode and send the request' },
  { command: '/skill:<name>', hint: "load a skill's instructions for this turn" },
  { command: '/compact [focus]', hint: 'replace older turns by a summary now' },
  { command: '/context', hint: 'show what filled the context window' },
];

/**
 * The composer (MODE-4, RLY-1/2): mode picker at the left end of the toolbar, Shift+Tab cycles it,
 * Enter sends, Shift+Enter is a newline. `/plan` is sent as typed; the server handles it.
 */
export function Composer({
  ws,
  space,
  conversationId,
  turnRunning,
  goingTurn = null,
}: {
  ws: string;
  space: Space;
  conversationId: string;
  turnRunning: boolean;
  /** HAR-5: the conversation's going turn a plain message sent now goes to (one waiting for an approval first). */
  goingTurn?: { id: string; waitsForApproval: boolean } | null;
}) {
  const client = useQueryClient();
  const send = useSendMessage(ws, conversationId);
  const choiceSequence = useRef(0);
  const [pickerError, setPickerError] = useState<unknown>(null);
  const [text, setText] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  // TOOL-3: files picked, pasted or dropped, sent with the next message.
  const attachments = useComposerAttachments();
  const [dropping, setDropping] = useState(false);
  // Said before sending: where a message sent now goes. A turn whose runtime cannot be steered gets it as the next turn.
  const goingControls = useRunControls(ws, goingTurn?.id ?? '', goingTurn !== null);
  const goingSteerable = goingControls.data?.controls.steer.available !== false;
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const pickerRef = useRef<HTMLSelectElement>(null);
  const isReview = space.mode === 'review';
  // RLY-3: a transport that declares no relay modes (OpenAI Image) still shows all four, each marked
  // as having no effect there — the choice is kept for the space (another agent may honour it).
  const agents = useAgents(ws);
  const transports = useHonestyMatrix();
  const modeless = transportWithoutModes(space, agents.data?.agents, transports.data?.transports);
  const hasPicker = !isReview;
  // TRUTH-1: on a runner whose tools run unasked, values that promise to ask are not offered (the server refuses them).
  const ungated = transportIgnoringAutonomy(space, agents.data?.agents, transports.data?.transports);
  const promisesToAsk = (value: PickerValue) => ungated !== null && (value === 'Agent' || value === 'Ask');
  const optionLabel = (value: PickerValue) => {
    if (modeless) return `${value} (no effect on ${modeless.label})`;
    if (promisesToAsk(value)) return `${value} (not on ${ungated!.label}: its tools run unasked)`;
    return value;
  };
  const pickerHint = (value: PickerValue | null) => {
    if (modeless) return `Modes have no effect on ${modeless.label}`;
    if (value === null) return '';
    if (promisesToAsk(value) || (ungated && space.autonomy !== 'actFreely')) return `${ungated!.label} runs its own tools without asking; only Autopilot describes what it does`;
    return PICKER_HINTS[value];
  };

  const choose = async (value: PickerValue) => {
    if (!hasPicker) return;
    rememberPicker(value);
    if (value === space.picker) return;
    // Optimistic: the picker shows the choice at once; the PATCH persists it on the space. Only the
    // newest choice's answer is applied, so fast Shift+Tab presses cannot end on a stale value.
    const mine = ++choiceSequence.current;
    const previous = space;
    client.setQueryData<Space>(keys.space(ws, space.id), { ...space, picker: value });
    setPickerError(null);
    try {
      const updated = await api.patch<Space>(`/api/workspaces/${ws}/spaces/${space.id}`, { picker: value });
      if (mine !== choiceSequence.current) return;
      // The answer can land after a newer `space.updated` (a rename made meanwhile): never put the older space back.
      writeFresherSpace(client, ws, updated);
    } catch (error) {
      if (mine !== choiceSequence.current) return;
      // Back to what was shown before the optimistic write, unless an event brought a newer space meanwhile.
      writeFresherEntity(client, keys.space(ws, space.id), previous);
      setPickerError(error);
    }
  };

  const submit = () => {
    const value = text.trim();
    const files = attachments.uploads();
    if ((!value && files.length === 0) || send.isPending) return;
    setNotice(null);
    send.mutate(
      { text: value, ...(files.length > 0 ? { attachments: files } : {}) },
      {
        onSuccess: (result) => {
          setText('');
          attachments.clear();
          if (!result.message && /^\/plan\s*$/.test(value)) setNotice('Plan mode armed: your next message is planned first.');
          if (result.steeredTurn) setNotice(goingTurn?.waitsForApproval ? 'Sent to the turn waiting for approval: it reads this once the approval is decided.' : 'Sent to the running turn — it reads this before its next step.');
          if (result.startsAfterRunId) setNotice(`Held until the current turn ends, then it starts the next turn: “${excerpt(value)}”`);
          if (result.space?.picker && isPickerValue(result.space.picker)) rememberPicker(result.space.picker);
        },
      },
    );
  };

  // Opening a conversation puts the cursor in the composer, ready to write.
  useEffect(() => {
    textareaRef.current?.focus({ preventScroll: true });
  }, [conversationId]);

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    // MODE-4: Shift+Tab while writing cycles the mode. In an empty composer (and in a review space,
    // which has no picker) it does what Shift+Tab does everywhere: moves the focus back, to the
    // picker, where the arrow keys change the mode — so the keyboard is never trapped here.
    if (event.key === 'Tab' && event.shiftKey && event.target === textareaRef.current && text !== '' && hasPicker) {
      event.preventDefault();
      void choose(nextPicker(space.picker));
      return;
    }
    if (event.target === textareaRef.current && event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  };

  const sendError = send.error;
  const noModel = sendError instanceof ApiError && sendError.status === 503;
  const showSlash = text.startsWith('/') && !text.includes(' ') && text.length < 12;

  return (
    <div
      className={`composer${dropping ? ' composer-dropping' : ''}`}
      onKeyDown={onKeyDown}
      onDragOver={(event) => {
        if (!event.dataTransfer.types.includes('Files')) return;
        event.preventDefault();
        setDropping(true);
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={(event) => {
        if (event.dataTransfer.files.length === 0) return;
        event.preventDefault();
        setDropping(false);
        void attachments.add(event.dataTransfer.files);
      }}
    >
      <div className="composer-toolbar" role="toolbar" aria-label="Composer">
        {isReview ? (
          <span className="mode-readonly" data-testid="mode-readonly" title="Review mode is set by pull-request spaces and pipelines; it cannot be picked (MODE-6).">
            Mode: Review · read-only
          </span>
        ) : (
          <label className="mode-picker">
            <span className="sr-only">Mode</span>
            <select
              ref={pickerRef}
              aria-label="Mode"
              data-testid="mode-picker"
              value={space.picker ?? ''}
              title={space.picker ? pickerHint(space.picker) : undefined}
              onChange={(event) => {
                if (isPickerValue(event.target.value)) void choose(event.target.value);
              }}
            >
              {space.picker === null ? (
                <option value="" disabled>
                  {spaceModeLabel(space)}
                </option>
              ) : null}
              {PICKER_VALUES.map((value) => (
                <option key={value} value={value} disabled={promisesToAsk(value)}>
                  {optionLabel(value)}
                </option>
              ))}
            </select>
          </label>
        )}
        {hasPicker && !turnRunning ? <span className="muted small mode-hint" data-testid="mode-hint" title={pickerHint(space.picker)}>{pickerHint(space.picker)}</span> : null}
        <span className="spacer" />
        {goingTurn ? (
          <span className="small next-turn" data-testid={goingTurn.waitsForApproval ? 'waiting-turn-note' : 'running-turn-note'}>
            {!goingSteerable
              ? "This agent's runtime cannot take messages mid-turn; what you send now starts a new turn after the current one."
              : goingTurn.waitsForApproval
                ? 'A turn waits for approval: what you send now goes to it as instructions, read once you decide.'
                : 'A turn is running: what you send now goes to it, read before its next step (@name starts a turn of its own).'}
          </span>
        ) : null}
        {turnRunning && hasPicker && !modeless && !goingTurn?.waitsForApproval ? (
          <span className="small next-turn" data-testid="next-turn-note">
            {goingTurn ? 'A mode change applies from the next turn.' : 'A turn is running: a mode change applies from the next turn.'}
          </span>
        ) : null}
        <span className="muted small keys-hint">{hasPicker ? 'Shift+Tab while typing: mode · ' : ''}Enter send · Shift+Enter newline</span>
      </div>
      {showSlash ? (
        <ul className="slash-hints" aria-label="Commands">
          {SLASH_HINTS.map((hint) => (
            <li key={hint.command}>
              <code>{hint.command}</code> <span className="muted">{hint.hint}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <textarea
        ref={textareaRef}
        aria-label="Message"
        data-testid="composer-input"
        rows={3}
        placeholder={isReview ? 'Message the reviewers…' : 'Message the agent — @name addresses one, /plan plans first'}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onPaste={(event) => {
          // A pasted screenshot arrives as a file; pasted text stays the textarea's.
          if (event.clipboardData.files.length === 0) return;
          event.preventDefault();
          void attachments.add(event.clipboardData.files);
        }}
      />
      <AttachmentTray pending={attachments.pending} onRemove={attachments.remove} />
      <div className="composer-footer">
        {notice ? (
          <span className="small notice-inline" role="status">
            {notice}
          </span>
        ) : null}
        {sendError ? (
          <span className="small">
            <FieldError message={errorMessage(sendError)} />
            {noModel ? <Link to={paths.general(ws)}>Configure a model key</Link> : null}
          </span>
        ) : null}
        {pickerError ? <FieldError message={`Mode not saved: ${errorMessage(pickerError)}`} /> : null}
        <span className="spacer" />
        <AttachButton onFiles={(files) => void attachments.add(files)} />
        <button type="button" className="btn btn-primary" onClick={submit} disabled={(!text.trim() && attachments.pending.length === 0) || send.isPending}>
          {send.isPending ? 'Sending…' : 'Send'}
        </button>
      </div>
    </div>
  );
}
