// `npm run schema:write`: rewrite schema.graphql, admin.graphql and openapi.json from the code.
import { writeSnapshots } from './snapshots.js';

await writeSnapshots();
