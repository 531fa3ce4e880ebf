// `npm start`: build dist/ and the admin app if their sources changed since their last build,
// then run the server from dist/ in this process, with plain node.
import { buildIfStale, entry, runBuilt } from './build.mjs';

await runBuilt(buildIfStale, entry);
