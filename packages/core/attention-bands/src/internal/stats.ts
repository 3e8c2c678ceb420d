/**
 * Test-only introspection of a tracker's work.
 *
 * @since 0.1.0
 * @internal
 */
import type { Tracker } from "../Tracker.ts"

/**
 * How many heap entries and pending targets the last `dueTargets` call looked at (not part of the public API).
 *
 * @internal
 */
export const examinedInLastCall = (tracker: Tracker): number => (tracker as unknown as { examined: number }).examined
