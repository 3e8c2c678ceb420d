/**
 * @heed/attention-bands: HOT/WARM/COOL/IDLE attention bands per target: tracker, config and poll scheduler.
 *
 * @since 0.1.0
 */
export {}
