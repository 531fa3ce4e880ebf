// `npm start`: build dist/ if the sources changed since the last build, then run the server
// from it in this process, with plain node.
import { pathToFileURL } from 'node:url';
import { buildIfStale, entry } from './build.mjs';

try {
  buildIfStale();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
await import(pathToFileURL(entry).href);
