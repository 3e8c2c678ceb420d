/**
 * @heed/decay: Efforts, reference detection, salience decay and working-context assembly.
 *
 * @since 0.1.0
 */
export {}
