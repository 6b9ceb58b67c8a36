// What the scripted endpoint was sent, read over its /__scripted/requests route from outside its process.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../harness/codeServer.mjs';

const ROUTE = '/__scripted/requests';

function routeUrl(endpoint) {
  return new URL(ROUTE, endpoint.url).toString();
}

/** Every chat-completions request recorded since the last clear: [{ method, path, headers, body }]. */
export async function recordedRequests(endpoint) {
  const response = await fetch(routeUrl(endpoint));
  if (!response.ok) throw new Error(`GET ${ROUTE} answered ${response.status}`);
  return response.json();
}

export async function clearRecordedRequests(endpoint) {
  const response = await fetch(routeUrl(endpoint), { method: 'DELETE' });
  if (!response.ok) throw new Error(`DELETE ${ROUTE} answered ${response.status}`);
}

/** The requests that carried tools: the agent's own turns, not summarization calls. */
export function agentTurnRequests(requests) {
  return requests.filter((request) => Array.isArray(request.body?.tools) && request.body.tools.length > 0);
}

/** True when the request carries a message of `role` whose whole text is `text` (not merely quoted inside a summary). */
export function hasMessage(request, role, text) {
  return (request.body?.messages ?? []).some((message) => message.role === role && message.content === text);
}

/** The wire messages of a request as one searchable string. */
export function messagesText(request) {
  return JSON.stringify(request.body?.messages ?? []);
}

/** Saves a request for a failure report; returns its path relative to the repository. */
export function keepRequest(name, request) {
  const file = path.join(ROOT, 'test-results', `ui-request-${name}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(request.body, null, 2));
  return path.relative(ROOT, file);
}
