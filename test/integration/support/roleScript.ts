// A script that answers agent calls and summarizer calls from separate step lists, so a compaction anywhere keeps the order.
import type { RecordedRequest, Responder } from '../../support/scriptedEndpoint';
import type { ScriptStep } from '../../support/scriptedSteps';
import { reply } from '../../support/scriptedSteps';
import { isSummaryRequest, validSummary } from './endpointFixture';

export interface RoleScript {
  /** Steps for agent (tool-carrying) calls, in order; a missing step is a 500 naming the call. */
  agent: ScriptStep[];
  /** Steps for summarizer calls, in order; when they run out, a valid summary. */
  summary?: ScriptStep[];
}

export function roleScript(script: RoleScript): Responder {
  let agentCalls = 0;
  let summaryCalls = 0;
  return (request: RecordedRequest) => {
    if (isSummaryRequest(request)) {
      const step = script.summary?.[summaryCalls++];
      return step ?? reply(validSummary('Finish the task the user gave in this session.'));
    }
    const step = script.agent[agentCalls++];
    return step ?? { kind: 'http', status: 500, body: { error: { message: `role script: no agent step for call #${agentCalls}` } } };
  };
}
