// Where the shared real-session fixtures live: ../shared beside the checkout (AGENT_SHARED_DIR overrides it).
import * as nodePath from 'node:path';

/** Every test, fault and bench command runs from the repository root (npm scripts set the cwd there). */
export const SHARED_DIR = process.env.AGENT_SHARED_DIR ?? nodePath.resolve(process.cwd(), '..', 'shared');

export const PI_FIXTURES_DIR = nodePath.join(SHARED_DIR, 'fixtures', 'pi-sessions');
