// Types of the project's ESLint plugin (scripts/noImportCycle.mjs) for the tests that load it.
import type { ESLint } from 'eslint';

declare const plugin: ESLint.Plugin;
export default plugin;
