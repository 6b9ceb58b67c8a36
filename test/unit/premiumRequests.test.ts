// Requests to VS Code's own models: counted per turn and model, named in the footer, and the note shown once per session and model.
import { describe, expect, it } from 'vitest';
import { mergeRequestCounts, OncePerSessionModel, premiumRequestFooter, premiumRequestNote } from '../../src/shared/premiumRequests';

describe('premium request footer', () => {
  it('premium-requests-are-counted-and-named-per-turn', () => {
    expect(premiumRequestFooter([{ model: 'GPT-4o', requests: 3 }])).toBe('3 requests to GPT-4o (each may count as a premium request)');
    expect(premiumRequestFooter([{ model: 'GPT-4o', requests: 1 }])).toBe('1 request to GPT-4o (each may count as a premium request)');
  });

  it('summarizer-requests-to-the-same-model-add-to-the-agent-count', () => {
    expect(premiumRequestFooter([{ model: 'GPT-4o', requests: 4 }, { model: 'GPT-4o', requests: 1 }])).toBe('5 requests to GPT-4o (each may count as a premium request)');
  });

  it('a-separate-summary-model-is-named-on-its-own', () => {
    const counts = [{ model: 'GPT-4o', requests: 4 }, { model: 'Claude Sonnet', requests: 1 }, { model: 'o3', requests: 2 }];
    expect(premiumRequestFooter(counts)).toBe('4 requests to GPT-4o, 1 request to Claude Sonnet and 2 requests to o3 (each may count as a premium request)');
  });

  it('no-footer-when-the-turn-sent-no-request-to-a-vscode-model', () => {
    expect(premiumRequestFooter([])).toBeUndefined();
    expect(premiumRequestFooter([{ model: 'GPT-4o', requests: 0 }, { model: 'o3', requests: Number.NaN }])).toBeUndefined();
    expect(mergeRequestCounts([{ model: 'GPT-4o', requests: 0 }, { model: 'o3', requests: 2 }])).toEqual([{ model: 'o3', requests: 2 }]);
  });
});

describe('premium request note', () => {
  it('note-is-one-line-and-names-the-model', () => {
    const note = premiumRequestNote('GPT-4o');
    expect(note).toBe('@agent makes one request to GPT-4o per step; with Copilot each may count as a premium request.');
    expect(note).not.toContain('\n');
  });

  it('note-shows-once-per-session-and-model', () => {
    const once = new OncePerSessionModel();
    expect(once.first('session-a', 'gpt-4o')).toBe(true);
    expect(once.first('session-a', 'gpt-4o')).toBe(false);
    expect(once.first('session-a', 'claude')).toBe(true);
    expect(once.first('session-b', 'gpt-4o')).toBe(true);
    // A key joined naively would make these two pairs collide.
    expect(once.first('a:b', 'c')).toBe(true);
    expect(once.first('a', 'b:c')).toBe(true);
  });
});
