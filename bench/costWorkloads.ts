// The cost replay's workloads: the two real pi sessions turn by turn (pi's tools named as ours) and the scripted tool-heavy session.
import type { ScenarioTurn } from '../test/support/contextScenario';
import { piTurns, toolHeavyTurns } from '../test/support/scenarioWorkloads';

export interface CostWorkload {
  name: string;
  turns: ScenarioTurn[];
}

/** pi's tools and ours take the same `path` argument; our agent would have called its own. */
const PI_TOOL_NAMES: Readonly<Record<string, string>> = { read: 'read_file', write: 'write_file', edit: 'edit_file', bash: 'run_command' };

function asOurTools(turns: readonly ScenarioTurn[]): ScenarioTurn[] {
  return turns.map((turn) => ({
    ...turn,
    steps: turn.steps.map((step) => ({ ...step, calls: step.calls.map((call) => ({ ...call, name: PI_TOOL_NAMES[call.name] ?? call.name })) })),
  }));
}

/** Every user turn of each real session (quick: the first 12) and 40 scripted tool-heavy turns (quick: 12). */
export function costWorkloads(quick: boolean): CostWorkload[] {
  const turns = quick ? 12 : Number.MAX_SAFE_INTEGER;
  return [
    { name: 'before-compaction', turns: asOurTools(piTurns('before-compaction.jsonl', turns)) },
    { name: 'large-session', turns: asOurTools(piTurns('large-session.jsonl', turns)) },
    { name: 'tool-heavy', turns: toolHeavyTurns(quick ? 12 : 40) },
  ];
}
