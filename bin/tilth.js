#!/usr/bin/env node
// Loads the TypeScript sources through tsx, so a checkout runs with no build step for the server.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli.ts');
