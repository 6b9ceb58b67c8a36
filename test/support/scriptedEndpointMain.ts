// Runs the scripted endpoint as a demo process: `scriptedEndpointMain <scenario> [port]`, prints the base URL.
import { startScriptedEndpoint } from './scriptedEndpoint';
import type { Script } from './scriptedEndpoint';
import { codingSession } from './scenarios/codingSession';
import { uiSession } from './scenarios/uiSession';

/** Scenarios by name; a static table so a bundler can include them. */
const SCENARIOS: Record<string, Script> = { codingSession, uiSession };

async function main(argv: string[]): Promise<void> {
  const [name = 'codingSession', portText = '0'] = argv;
  const script = SCENARIOS[name];
  const port = Number(portText);
  if (!script || !Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`usage: scriptedEndpointMain <${Object.keys(SCENARIOS).join('|')}> [port]`);
    process.exitCode = 2;
    return;
  }
  const endpoint = await startScriptedEndpoint(script, { port });
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
