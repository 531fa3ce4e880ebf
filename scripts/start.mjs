// `npm start`: build dist/ and the admin app if their sources changed since their last build,
// then run the server from dist/ in this process, with plain node.
import { pathToFileURL } from 'node:url';
import { buildIfStale, entry } from './build.mjs';

try {
  buildIfStale();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
await import(pathToFileURL(entry).href);
