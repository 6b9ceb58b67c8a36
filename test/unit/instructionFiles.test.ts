// AGENTS.md and .github/copilot-instructions.md: read from the workspace, joined to the system prompt, capped, counted apart.
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import { INSTRUCTION_FILE_CHARS, INSTRUCTIONS_HEADING, readInstructionFiles, splitInstructions } from '../../src/core/context/instructionFiles';
import { buildSystemPrompt } from '../../src/core/agent/systemPrompt';
import type { CountingDeps } from '../../src/core/budget/meter';
import { measureContext } from '../../src/core/budget/meter';
import { defaultSettings } from '../../src/core/settings/settings';
import { ToolRegistry } from '../../src/core/tools/toolRegistry';
import { collect, scriptedModel } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';
import { recordingAccess } from '../support/agentWorkspace';

const fixture = useAgentFixture();

function countingDeps(systemPrompt: string, registry: ToolRegistry): CountingDeps {
  const { counter, cache } = fixture.session;
  return { counter, cache, settings: defaultSettings(), contextWindow: 128_000, systemPrompt, systemRole: 'system', tools: registry.definitions() };
}

describe('instruction files', () => {
  it('agents-md-joins-the-system-prompt', async () => {
    fixture.ws.write('AGENTS.md', '# Rules\nRun `npm test` before you answer.\n');
    fixture.ws.write('.github/copilot-instructions.md', 'Use tabs, never spaces.\n');
    const workspace = recordingAccess(fixture.ws.root).access;
    const registry = new ToolRegistry();
    const instructions = await readInstructionFiles((path) => workspace.readFile(path));
    expect(instructions.map((file) => file.path)).toEqual(['AGENTS.md', '.github/copilot-instructions.md']);
    const systemPrompt = buildSystemPrompt({ toolNames: registry.names(), workspaceRoots: workspace.roots(), instructions });
    const model = scriptedModel([{ text: 'ok' }]);
    await collect(runAgent({ ...baseAgentOptions(fixture, model), registry, workspace, systemPrompt }));

    const system = model.requests[0]?.messages[0];
    expect(system?.role).toBe('system');
    const sent = String(system?.content);
    expect(sent).toContain(`\n\n${INSTRUCTIONS_HEADING}\n`);
    expect(sent).toContain('<instructions file="AGENTS.md">\n# Rules\nRun `npm test` before you answer.\n</instructions>');
    expect(sent).toContain('<instructions file=".github/copilot-instructions.md">\nUse tabs, never spaces.\n</instructions>');
    expect(sent.indexOf('Context management:')).toBeLessThan(sent.indexOf(INSTRUCTIONS_HEADING));

    // Their own part of the budget: system and instructions together are the system message, nothing counted twice.
    const { counter } = fixture.session;
    const measured = measureContext([fixture.session.log.path()[0]!], countingDeps(systemPrompt, registry));
    const { breakdown } = measured.budget;
    expect(breakdown.instructions).toBeGreaterThan(20);
    expect(breakdown.system + breakdown.instructions).toBe(counter.countMessage({ role: 'system', content: systemPrompt }));
    expect(breakdown.instructions).toBe(counter.countText(splitInstructions(systemPrompt).instructions));
    expect(breakdown.system + breakdown.instructions + breakdown.tools + breakdown.summary + breakdown.messages + breakdown.toolResults).toBe(measured.budget.used);
  });

  it('a-long-instruction-file-is-cut-and-the-prompt-says-so', async () => {
    fixture.ws.write('AGENTS.md', `${'a'.repeat(INSTRUCTION_FILE_CHARS)}${'b'.repeat(12_000)}`);
    const workspace = recordingAccess(fixture.ws.root).access;
    const instructions = await readInstructionFiles((path) => workspace.readFile(path));
    expect(instructions).toEqual([{ path: 'AGENTS.md', text: 'a'.repeat(INSTRUCTION_FILE_CHARS), cutFrom: INSTRUCTION_FILE_CHARS + 12_000 }]);
    const prompt = buildSystemPrompt({ toolNames: [], instructions });
    expect(prompt).toContain(`[cut: AGENTS.md has ${INSTRUCTION_FILE_CHARS + 12_000} characters; only the first ${INSTRUCTION_FILE_CHARS} are shown here.`);
    expect(prompt).not.toContain('ab');
  });

  it('without-instruction-files-the-prompt-and-budget-are-unchanged', async () => {
    fixture.ws.write('.github/copilot-instructions.md', '   \n');
    const workspace = recordingAccess(fixture.ws.root).access;
    const registry = new ToolRegistry();
    const instructions = await readInstructionFiles((path) => workspace.readFile(path));
    expect(instructions).toEqual([]);
    const plain = buildSystemPrompt({ toolNames: registry.names() });
    expect(buildSystemPrompt({ toolNames: registry.names(), instructions })).toBe(plain);
    expect(splitInstructions(plain)).toEqual({ base: plain, instructions: '' });
    await fixture.session.log.append({ type: 'user', text: 'hello' });
    const measured = measureContext(fixture.session.log.path(), countingDeps(plain, registry));
    expect(measured.budget.breakdown.instructions).toBe(0);
    expect(measured.budget.breakdown.system).toBe(fixture.session.counter.countMessage({ role: 'system', content: plain }));
  });

  it('a-heading-inside-an-instruction-file-does-not-move-the-split', () => {
    const instructions = [{ path: 'AGENTS.md', text: `${INSTRUCTIONS_HEADING}\nnested` }];
    const prompt = buildSystemPrompt({ toolNames: ['read_file'], instructions });
    const { base, instructions: section } = splitInstructions(prompt);
    expect(base).toBe(buildSystemPrompt({ toolNames: ['read_file'] }));
    expect(base + section).toBe(prompt);
  });
});
