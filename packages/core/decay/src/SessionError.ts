/**
 * The errors of a session: the effort tools' errors (CCM's error texts, as typed errors) and the validation
 * failure of a session's settings. `SessionStoreError` and `SummarizerError` stay beside their services.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { SessionStoreError } from "./SessionStore.ts"
import type { SummarizerError } from "./Summarizer.ts"

/**
 * No effort with the given id (or no open effort, for `closeEffort`).
 *
 * @category errors
 * @since 0.1.0
 */
export class EffortNotFound extends Schema.TaggedError<EffortNotFound>()("EffortNotFound", {
  id: Schema.String,
  message: Schema.String
}) {}

/**
 * The effort exists but is in the wrong state for the operation (CCM's error texts).
 *
 * @category errors
 * @since 0.1.0
 */
export class EffortStateError extends Schema.TaggedError<EffortStateError>()("EffortStateError", {
  id: Schema.optional(Schema.String),
  message: Schema.String
}) {}

/**
 * `openEffort` with an id that already exists (CCM silently created a second entry).
 *
 * @category errors
 * @since 0.1.0
 */
export class DuplicateEffortId extends Schema.TaggedError<DuplicateEffortId>()("DuplicateEffortId", {
  id: Schema.String,
  message: Schema.String
}) {}

/**
 * An effort id that cannot name a log file, or a bad per-call setting.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidEffortInput extends Schema.TaggedError<InvalidEffortInput>()("InvalidEffortInput", {
  id: Schema.optional(Schema.String),
  message: Schema.String
}) {}

/**
 * Every error an effort tool can fail with.
 *
 * @category errors
 * @since 0.1.0
 */
export type EffortError =
  | EffortNotFound
  | EffortStateError
  | DuplicateEffortId
  | InvalidEffortInput
  | SessionStoreError
  | SummarizerError

/**
 * Validation failure of a `SessionConfig`.
 *
 * @category errors
 * @since 0.1.0
 */
export class SessionConfigError extends Schema.TaggedError<SessionConfigError>()("SessionConfigError", {
  message: Schema.String
}) {}
