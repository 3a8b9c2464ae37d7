/**
 * Version of this package; a test keeps it equal to package.json and the core.
 *
 * @group Session
 */
export const VERSION = '0.1.0';
