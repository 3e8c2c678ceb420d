/**
 * @heed/collator: Awareness entries, store port, collator and a token-budgeted briefing.
 *
 * @since 0.1.0
 */
export {}
