// This package's version, written by scripts/sync-versions.ts from its package.json (`./heed pnpm version-packages`
// runs it after `changeset version`; `./heed check` fails when the two differ). A constant rather than a read of
// package.json, because the package runs without Node's file system too.
export const version = "0.0.0"
