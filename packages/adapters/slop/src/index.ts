/**
 * @heed/slop: SLOP's local side for consumers: provider discovery from descriptor folders (watched, rescanned, dead
 * pids dropped) and the Unix-socket and stdio NDJSON transports for @heed/state-tree's Consumer.
 *
 * @since 0.1.0
 */

/**
 * Discovers local SLOP providers from descriptor folders (`~/.slop/providers`, `/tmp/slop/providers` or
 * `HEED_SLOP_PROVIDER_DIRS`), watched and rescanned: `ProviderWatch.watch({ onChange })`, `ProviderWatch.scan`.
 *
 * @since 0.1.0
 */
export * as ProviderWatch from "./ProviderWatch.ts"

/**
 * Unix-socket and stdio NDJSON transports for `@heed/state-tree`'s `Consumer`, with reconnection:
 * `SlopStream.unix({ path })`, `SlopStream.stdio({ command })`.
 *
 * @since 0.1.0
 */
export * as SlopStream from "./SlopStream.ts"
