#!/usr/bin/env node
// The `loyalty` CLI: the bundle dist/cli.mjs with plain node, built first when a source is
// newer than it (scripts/build.mjs), as `npm start` does for the server.
import { bundleIfStale, cliEntry, runBuilt } from '../scripts/build.mjs';

await runBuilt(bundleIfStale, cliEntry);
