// The panel's drop section: the context's turns and tool steps as /drop numbers them, and a measured drop waiting for confirmation.
import type { DropPreview } from '../agent/dropRunner';
import type { ContextTurn } from '../context/contextTurns';
import { boundList, omittedLine, type BoundedList } from '../session/boundedList';
import type { ContextTurnView, DropPreviewView } from '../../shared/panelViewModels';

/** How many of the newest turns the panel lists (/drop reaches every one). */
const TURN_LIMIT = 30;
/** How many of a turn's newest tool steps the panel lists (/drop 3.2 reaches every one). */
export const STEP_LIMIT = 20;

/** The newest turns, each with its newest steps; what each leaves out is counted (the turns' count on the list). */
export function toTurnViews(turns: readonly ContextTurn[]): BoundedList<ContextTurnView> {
  const shown = boundList(turns, { maxItems: TURN_LIMIT, keep: 'last' });
  const views = shown.map((turn): ContextTurnView => {
    const steps = boundList(turn.steps, { maxItems: STEP_LIMIT, keep: 'last' });
    return {
      number: turn.number,
      request: turn.request,
      messages: turn.entryIds.length,
      dropped: turn.dropped,
      steps: steps.map((step) => ({ number: step.number, tools: step.tools, dropped: step.dropped })),
      ...(steps.omitted > 0 ? { stepsOmitted: steps.omitted } : {}),
    };
  });
  return Object.assign(views, { omitted: shown.omitted });
}

/** How many of the newest turns /drop lists in the chat, and the most characters their lines take. */
const LISTED_TURNS = { maxItems: 40, maxChars: 12_000 } as const;

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>~|]/g, (char) => `\\${char}`);
}

/** One turn as /drop lists it: number, request (struck through when dropped), and its newest tool steps. */
function turnLine(turn: ContextTurn): string {
  const steps = boundList(turn.steps, { maxItems: STEP_LIMIT, keep: 'last' });
  const named = steps.map((step) => `${step.number} ${step.tools}${step.dropped && !turn.dropped ? ' (dropped)' : ''}`);
  const earlier = steps.omitted > 0 ? [`${omittedLine(steps.omitted, 'earlier tool step', 'earlier tool steps')} (from ${turn.number}.1)`] : [];
  const list = steps.length === 0 ? '' : ` — tool steps ${[...earlier, ...named].join(', ')}`;
  return `${turn.number}. ${turn.dropped ? '~~' : ''}${escapeMarkdown(turn.request)}${turn.dropped ? '~~ (dropped)' : ''}${list}`;
}

/**
 * The turns of the context as /drop lists them in the chat: the newest within LISTED_TURNS, each with its newest
 * tool steps, and how many earlier ones are left out (their numbers still work).
 */
export function dropListing(turns: readonly ContextTurn[]): string {
  if (turns.length === 0) return 'There is nothing in the context to drop yet: send a request first.';
  const shown = boundList(turns, { ...LISTED_TURNS, keep: 'last', size: (turn) => turnLine(turn).length + 1 });
  const earlier = shown.omitted > 0 ? [`${omittedLine(shown.omitted, 'earlier turn', 'earlier turns')} (1–${shown.omitted}; \`/drop <number>\` reaches them too)`, ''] : [];
  return [
    '**Turns in the context** (since the latest summary):',
    '',
    ...earlier,
    ...shown.map(turnLine),
    '',
    'Drop with `/drop 3`, a range `/drop 2-4`, one tool step with its results `/drop 3.2`, or `/drop last`. You see what it frees before you confirm; `/drop undo` brings back the latest drop.',
  ].join('\n');
}

export function toDropPreviewView(id: string, preview: DropPreview): DropPreviewView {
  return { id, label: preview.label, dropped: preview.dropped, tokens: preview.tokens, usedBefore: preview.usedBefore, usedAfter: preview.usedAfter, usable: preview.usable };
}
