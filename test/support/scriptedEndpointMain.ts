// Runs the scripted endpoint as a demo process: `scriptedEndpointMain <scenario> [port]`, prints the base URL.
import { startScriptedEndpoint } from './scriptedEndpoint';
import type { Script, ScriptedEndpointOptions } from './scriptedEndpoint';
import { codingSession } from './scenarios/codingSession';
import { DEMO_MODEL, DEMO_WINDOW, demoSession } from './scenarios/demoSession';
import { uiSession } from './scenarios/uiSession';

/** Scenarios by name; a static table so a bundler can include them. */
const SCENARIOS: Record<string, Script> = { codingSession, uiSession, demoSession };

/** The demo lists its model with its own small window, so the extension's default settings fill it within three requests. */
const OPTIONS: Record<string, ScriptedEndpointOptions> = {
  demoSession: { model: DEMO_MODEL, models: [{ id: DEMO_MODEL, object: 'model', created: 0, owned_by: 'scripted demo endpoint', context_length: DEMO_WINDOW }] },
};

async function main(argv: string[]): Promise<void> {
  const [name = 'codingSession', portText = '0'] = argv;
  const script = SCENARIOS[name];
  const port = Number(portText);
  if (!script || !Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`usage: scriptedEndpointMain <${Object.keys(SCENARIOS).join('|')}> [port]`);
    process.exitCode = 2;
    return;
  }
  const endpoint = await startScriptedEndpoint(script, { ...OPTIONS[name], port });
  console.log(`scripted demo endpoint (${name}) listening at ${endpoint.url}`);
  const stop = (): void => {
    endpoint.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`scripted endpoint failed to start: ${String(error)}`);
  process.exitCode = 1;
});
