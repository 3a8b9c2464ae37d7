/** Exit codes every command uses. */
export const EXIT_OK = 0;
/** The answer is "no": an invalid plan, over budget, proved infeasible. */
export const EXIT_NEGATIVE = 1;
/** Bad input or usage. */
export const EXIT_BAD_INPUT = 2;

/** An error that carries the exit code the CLI should end with. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT_BAD_INPUT) {
    super(message);
  }
}
