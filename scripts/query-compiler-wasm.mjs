// Stands in, inside the bundle only (scripts/build.mjs aliases it), for Prisma's module that
// holds the query compiler's wasm as one 4.5 MB string literal: the build writes that string to
// a file next to the bundle, read here when the client first compiles a query, so node neither
// parses it as source at start-up nor keeps it as part of the bundle's source text.
import { readFileSync } from 'node:fs';

export const wasm = readFileSync(new URL('./query-compiler.wasm-base64', import.meta.url), 'latin1');
