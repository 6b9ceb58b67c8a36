// The summary model setting names an endpoint model, or a VS Code model with the vscode: prefix.
import { describe, expect, it } from 'vitest';
import { vscodeModelRef } from '../../src/core/settings/summaryModelRef';

describe('summary model setting', () => {
  it('reads vscode:<vendor>/<id>, the id keeping any further slashes', () => {
    expect(vscodeModelRef('vscode:copilot/gpt-4o-mini')).toEqual({ vendor: 'copilot', id: 'gpt-4o-mini' });
    expect(vscodeModelRef('vscode:acme/org/model')).toEqual({ vendor: 'acme', id: 'org/model' });
  });

  it('leaves endpoint ids (OpenRouter ids contain a slash) and malformed values alone', () => {
    expect(vscodeModelRef('openai/gpt-4o-mini')).toBeUndefined();
    expect(vscodeModelRef('vscode:copilot')).toBeUndefined();
    expect(vscodeModelRef('vscode:/gpt-4o')).toBeUndefined();
    expect(vscodeModelRef('vscode:copilot/')).toBeUndefined();
    expect(vscodeModelRef('')).toBeUndefined();
  });
});
