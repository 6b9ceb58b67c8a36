// One temp workspace and session per test, and the agent options every loop test starts from.
import { afterEach, beforeEach } from 'vitest';
import type { AgentOptions } from '../../src/core/agent/agentLoop';
import type { ModelStream } from '../../src/core/llm/modelStream';
import { defaultSettings } from '../../src/core/settings/settings';
import { ToolRegistry } from '../../src/core/tools/toolRegistry';
import { recordingSummarizer, tempSession, type TempSession } from './agentFakes';
import { recordingAccess, tempWorkspace, type TempWorkspace } from './agentWorkspace';

export interface AgentFixture {
  readonly ws: TempWorkspace;
  readonly session: TempSession;
}

/** Registers beforeEach/afterEach hooks; the returned fixture reads the current test's workspace and session. */
export function useAgentFixture(prepare?: (ws: TempWorkspace) => void): AgentFixture {
  let ws: TempWorkspace | undefined;
  let session: TempSession | undefined;
  beforeEach(async () => {
    ws = tempWorkspace();
    prepare?.(ws);
    session = await tempSession();
  });
  afterEach(async () => {
    await session?.cleanup();
    ws?.cleanup();
  });
  return {
    get ws() {
      if (!ws) throw new Error('the agent fixture is only available inside a test');
      return ws;
    },
    get session() {
      if (!session) throw new Error('the agent fixture is only available inside a test');
      return session;
    },
  };
}

/** Options for a run on the fixture with defaults (gpt-4o, 128k window, recording summarizer); tests override the rest. */
export function baseAgentOptions(fixture: AgentFixture, model: ModelStream): AgentOptions {
  return {
    log: fixture.session.log,
    model,
    modelId: 'gpt-4o',
    registry: new ToolRegistry(),
    workspace: recordingAccess(fixture.ws.root).access,
    settings: defaultSettings(),
    contextWindow: 128_000,
    counter: fixture.session.counter,
    cache: fixture.session.cache,
    summarize: recordingSummarizer().summarize,
    signal: new AbortController().signal,
    userText: 'go',
  };
}
