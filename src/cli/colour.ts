/**
 * Colour only on a terminal and never with NO_COLOR (no-color.org: set and not
 * empty), whatever FORCE_COLOR says: a pipe, a log or a CI transcript gets plain
 * text. The tables' colours come from cli-table3 (through @colors/colors, which
 * honours FORCE_COLOR but not NO_COLOR), so every table takes its style here.
 */
export function colourAllowed(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !(env.NO_COLOR !== undefined && env.NO_COLOR !== '');
}

/** The cli-table3 style of every table: grey borders on a terminal, no escape codes elsewhere. */
export function tableStyle(): { head: string[]; border: string[] } {
  return { head: [], border: colourAllowed() ? ['grey'] : [] };
}
