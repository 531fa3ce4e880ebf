// The project's folder (the one holding prisma/schema.prisma), found upward from this module
// wherever it runs from: src/ under tsx, or the server bundle in dist/ (scripts/build.mjs).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'prisma', 'schema.prisma'))) return dir;
    if (dir === path.dirname(dir)) throw new Error(`No prisma/schema.prisma above ${from}: is the project's folder intact?`);
  }
}

export const projectRoot = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));
