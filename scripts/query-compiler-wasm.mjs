// Stands in, inside the bundle only (scripts/build.mjs aliases it), for Prisma's module that
// holds the query compiler's wasm as one 4.5 MB base64 string literal: the build writes the bytes
// it encodes to a file next to the bundle, read here when the client first compiles a query, so
// node neither parses the string as source at start-up nor keeps it as part of the bundle's
// source text, nor reads and decodes 4.5 MB of base64 on the way to the first query. The
// generated client passes `wasm` to `Buffer.from(wasm, 'base64')`, which copies a Buffer as it
// is (the encoding applies to strings only).
import { readFileSync } from 'node:fs';

export const wasm = readFileSync(new URL('./query-compiler.wasm', import.meta.url));
