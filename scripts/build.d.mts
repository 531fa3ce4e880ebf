// Types of build.mjs, for the TypeScript that calls it (test/global-setup.ts).
export const entry: string;
export function build(): void;
export function buildAdminApp(): void;
export function adminAppIsStale(): boolean;
export function buildAdminAppIfStale(): void;
export function buildIfStale(): void;
