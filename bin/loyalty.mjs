#!/usr/bin/env node
// The `loyalty` CLI: the bundle dist/cli.mjs with plain node, built first when a source is
// newer than it (scripts/build.mjs), as `npm start` does for the server.
import { pathToFileURL } from 'node:url';
import { bundleIfStale, cliEntry } from '../scripts/build.mjs';

try {
  bundleIfStale();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
await import(pathToFileURL(cliEntry).href);
