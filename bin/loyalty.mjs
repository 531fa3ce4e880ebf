#!/usr/bin/env node
// The `loyalty` CLI: runs the TypeScript entry through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/index.ts');
