// What @agent answers when it has no endpoint model to run on: why, and a button for the guided setup.
import * as vscode from 'vscode';
import type { EndpointConnection } from './endpointConnection';
import { SET_UP_COMMAND } from './endpointSetup';

export function showSetup(stream: vscode.ChatResponseStream, endpoint: EndpointConnection): void {
  const text = new vscode.MarkdownString();
  const failure = endpoint.configured ? endpoint.lastListingError : undefined;
  if (!endpoint.configured) {
    text.appendMarkdown(vscode.l10n.t('**No endpoint is configured.** Set one up in a minute: the server (OpenAI, OpenRouter, Azure OpenAI, vLLM, llama.cpp, LM Studio, Ollama or any OpenAI-compatible one), its URL and key, then a model. Or pick another model in the Chat view.'));
  } else if (failure) {
    text.appendMarkdown(vscode.l10n.t('**The endpoint\'s models could not be listed:** ')).appendText(failure).appendMarkdown(`\n\n${vscode.l10n.t('Check its URL and key, or pick another model in the Chat view.')}`);
  } else {
    text.appendMarkdown(vscode.l10n.t('**The endpoint lists no models.** Set the model id, or pick another model in the Chat view.'));
  }
  stream.markdown(text);
  stream.button({ command: SET_UP_COMMAND, title: vscode.l10n.t('Set Up Endpoint') });
  stream.button({ command: 'compactionAgent.openSettings', title: vscode.l10n.t('Open Settings') });
}
