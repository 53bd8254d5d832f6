import { writeFileSync } from 'node:fs';

/**
 * One reading of a script's command line: `--flag value` options and `--switch` flags into a copy
 * of the defaults. `readers` names each option in camelCase (`bodyBytes` is read from
 * `--body-bytes`) with how its value's text is read (a function that may throw with the flag's
 * name), or `true` for a switch that takes no value and sets the option to true.
 */
export function readOptions(argv, defaults, readers, unknown = (flag) => `unknown option ${flag}`) {
  const options = { ...defaults };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const option = flag.startsWith('--') ? flag.slice(2).replace(/-([a-z])/g, (_, letter) => letter.toUpperCase()) : '';
    if (!Object.hasOwn(readers, option)) throw new Error(unknown(flag));
    const read = readers[option];
    if (read === true) {
      options[option] = true;
      continue;
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    options[option] = read(value, flag);
  }
  return options;
}

/** The value as given. */
export const text = (value) => value;

/** A comma-separated list of numbers. */
export const numbers = (value) => value.split(',').map(Number);

/** A whole number of at least 1. */
export function positiveInteger(value, flag) {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${flag} needs a positive integer`);
  return n;
}

/** A whole number of at least 0. */
export function count(value, flag) {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${flag} needs a whole number (0 or more)`);
  return n;
}

/** A whole number from 1 to `max`. */
export function integerUpTo(max) {
  return (value, flag) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`${flag} must be an integer in 1..${max}`);
    return n;
  };
}

/** The options every seeded run (chaos, fuzz) takes: `--seed S`, `--concurrency C`, `--out FILE`, `--json`. */
export const SEEDED_RUN_READERS = { seed: Number, concurrency: Number, out: text, json: true };

/**
 * A measuring script run from the command line: its options read by `parse`, `run` with its
 * progress on stderr, the result written as JSON to `--out` when given; answers the result.
 */
export async function runFromCommandLine(parse, run) {
  const options = parse(process.argv.slice(2));
  const result = await run(options, (line) => console.error(line));
  if (options.out) writeFileSync(options.out, `${JSON.stringify(result, null, 2)}\n`);
  return result;
}
