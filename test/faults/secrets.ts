// Fault family 7: a known API key through the real client and agent loop, with servers that echo it back; 0 leaks anywhere.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as nodePath from 'node:path';
import type { HttpFaultStep, ScriptStep } from '../support/scriptedSteps';
import { faults, reply, toolCalls } from '../support/scriptedSteps';
import { discardRun, runScenario, type ScenarioRun, type ScenarioSpec } from './agentScenario';
import { runFamily, type FamilyResult } from './familyReport';

const SECRET_PART = randomBytes(24).toString('hex');
const KEY = `sk-proj-${SECRET_PART}`;

/** An error response that quotes the key back, as some proxies and misconfigured servers do. */
function echoing(status: number): HttpFaultStep {
  return {
    kind: 'http',
    status,
    body: {
      error: {
        message: `Request with key ${KEY} failed (Authorization: Bearer ${KEY})`,
        type: 'server_error',
        key: KEY,
      },
    },
  };
}

const SESSIONS: Array<{ name: string; spec: ScenarioSpec }> = [
  {
    name: 'tools, capped output and compaction',
    spec: {
      apiKey: KEY,
      historyTurns: 22,
      settings: (settings) => (settings.tools.outputMaxChars = 1000),
      agentSteps: [
        toolCalls([
          { name: 'run_command', arguments: { command: 'seq 1 3000' } },
          { name: 'list_dir', arguments: { path: '.' } },
        ]),
        reply('The sequence has 3000 lines.'),
      ],
    },
  },
  {
    name: 'wrong key (real 401)',
    spec: { apiKey: KEY, endpointKey: 'sk-the-right-one', agentSteps: [reply('unused')] },
  },
  { name: '401 echoing the key', spec: { apiKey: KEY, agentSteps: [echoing(401)] } },
  {
    name: '500s echoing the key, retried',
    spec: { apiKey: KEY, maxRetries: 2, agentSteps: [echoing(500), echoing(502), echoing(503)] },
  },
  { name: '400 echoing the key', spec: { apiKey: KEY, agentSteps: [echoing(400)] } },
  {
    name: '429 echoing the key, then a reply',
    spec: { apiKey: KEY, agentSteps: [{ ...echoing(429), headers: { 'retry-after': '1' } }, reply('ok')] },
  },
  {
    name: 'summarizer failure echoing the key',
    spec: {
      apiKey: KEY,
      historyTurns: 22,
      maxRetries: 1,
      summarySteps: [echoing(500), echoing(500)] as ScriptStep[],
      agentSteps: [reply('ok')],
    },
  },
  { name: 'reset mid-stream', spec: { apiKey: KEY, agentSteps: [faults.reset('partial'), reply('unused')] } },
];

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => nodePath.join(dir, name))
    .filter((path) => statSync(path).isFile());
}

function leaksIn(text: string): boolean {
  return text.includes(KEY) || text.includes(SECRET_PART);
}

function scan(name: string, run: ScenarioRun, failures: string[]): { files: number; messages: number } {
  const files = filesBelow(run.dir);
  for (const file of files) {
    if (leaksIn(readFileSync(file).toString('latin1')))
      failures.push(`${name}: the key is in ${nodePath.relative(run.dir, file)}`);
  }
  for (const event of run.events) {
    if (leaksIn(JSON.stringify(event))) failures.push(`${name}: the key is in a "${event.type}" event`);
  }
  for (const request of run.requests) {
    if (leaksIn(JSON.stringify(request.body))) failures.push(`${name}: the key was sent in a request body`);
  }
  failures.push(...run.problems.map((problem) => `${name}: ${problem}`));
  return { files: files.length, messages: run.events.length };
}

async function run(): Promise<FamilyResult> {
  const failures: string[] = [];
  let files = 0;
  let messages = 0;
  let errorEvents = 0;
  for (const session of SESSIONS) {
    const result = await runScenario(session.spec);
    const counts = scan(session.name, result, failures);
    files += counts.files;
    messages += counts.messages;
    errorEvents += result.events.filter((event) => event.type === 'error').length;
    discardRun(result);
  }
  // The scan must have had something to find: error texts from the echoing servers and blob files.
  if (errorEvents < 5) failures.push(`only ${errorEvents} error events: the echoing servers were not exercised`);
  if (files < SESSIONS.length + 1) failures.push(`only ${files} files written: blobs or logs missing`);
  const leaks = failures.filter((failure) => failure.includes('the key')).length;
  return { line: `secrets: ${files} files and ${messages} messages scanned, ${leaks} leaks`, failures };
}

runFamily('secrets', run);
