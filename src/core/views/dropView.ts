// The panel's drop section: the context's turns and tool steps as /drop numbers them, and a measured drop waiting for confirmation.
import type { DropPreview } from '../agent/dropRunner';
import type { ContextTurn } from '../context/contextTurns';
import type { ContextTurnView, DropPreviewView } from '../../shared/panelViewModels';

/** How many of the newest turns the panel lists (/drop reaches every one). */
const TURN_LIMIT = 30;

export function toTurnViews(turns: readonly ContextTurn[]): ContextTurnView[] {
  return turns.slice(-TURN_LIMIT).map((turn) => ({
    number: turn.number,
    request: turn.request,
    messages: turn.entryIds.length,
    dropped: turn.dropped,
    steps: turn.steps.map((step) => ({ number: step.number, tools: step.tools, dropped: step.dropped })),
  }));
}

export function toDropPreviewView(id: string, preview: DropPreview): DropPreviewView {
  return { id, label: preview.label, dropped: preview.dropped, tokens: preview.tokens, usedBefore: preview.usedBefore, usedAfter: preview.usedAfter, usable: preview.usable };
}
