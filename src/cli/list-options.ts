/**
 * Options that take a list of `key=value` words (`--compare recipe=bf16
 * recompute=on`, `--input x=1x3x224x224 batch=4`). Commander's variadic options
 * take every word up to the next option, so `plan --compare a=b c=d FILE` would
 * swallow FILE and then miss the required argument. Instead these
 * options are declared with one value and repeatable, and `expandListOptions`
 * rewrites the command line before commander reads it: after a list option,
 * each further word that has a `=` and does not start with `-` becomes one more
 * `--option word`. The first word is always the option's value (so a bad one is
 * still reported as a bad value); a word without `=` ends the list.
 */
export const LIST_OPTIONS: readonly string[] = ['--compare', '--input', '--value', '--branch'];

/** `['--compare', 'a=b', 'c=d', 'f.json']` -> `['--compare', 'a=b', '--compare', 'c=d', 'f.json']`. */
export function expandListOptions(argv: readonly string[], listOptions: readonly string[] = LIST_OPTIONS): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const word = argv[i++];
    out.push(word);
    if (word === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (!listOptions.includes(word) || i >= argv.length) continue;
    out.push(argv[i++]);
    while (i < argv.length && argv[i].includes('=') && !argv[i].startsWith('-')) out.push(word, argv[i++]);
  }
  return out;
}
