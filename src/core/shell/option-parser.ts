import type { ShellWord } from './shell-words.js';

/** Which options of a program take a value. */
export interface OptionSpec {
  /** Short option letters that take a value (`o` for `-o FILE` / `-oFILE`). */
  readonly short?: string;
  /** Long option names, without dashes, that take a value (`output` for `--output FILE`). */
  readonly long?: readonly string[];
  /** Stop option parsing at the first positional (POSIX style: `xargs rm -f`). */
  readonly stopAtPositional?: boolean;
}

/** The arguments of one program split into options and positionals. */
export interface ParsedOptions {
  /** Positional arguments in order (everything after `--` included). */
  readonly positionals: ShellWord[];
  /** Flags seen, spelled `-x` or `--long`. */
  readonly flags: Set<string>;
  /** Values of options that take one, keyed `-o` or `--output`; repeated options keep every value. */
  readonly values: Map<string, ShellWord[]>;
  /** Index in `args` of the first positional when `stopAtPositional` stopped there, else `args.length`. */
  readonly restIndex: number;
}

function pushValue(values: Map<string, ShellWord[]>, key: string, value: ShellWord): void {
  const list = values.get(key);
  if (list) list.push(value);
  else values.set(key, [value]);
}

/**
 * GNU-style option parsing, enough to find a program's targets: bundled short flags (`-rf`), attached
 * (`-oFILE`) and separate (`-o FILE`) values, `--long=value`, `--long value`, and `--`. A word whose
 * value is only known at run time is a positional: guessing it is a flag would hide a target.
 */
export function parseOptions(args: readonly ShellWord[], spec: OptionSpec = {}): ParsedOptions {
  const shortWithValue = spec.short ?? '';
  const longWithValue = new Set(spec.long ?? []);
  const positionals: ShellWord[] = [];
  const flags = new Set<string>();
  const values = new Map<string, ShellWord[]>();
  let index = 0;
  for (; index < args.length; index += 1) {
    const arg = args[index]!;
    const text = arg.value;
    if (text === '--') {
      positionals.push(...args.slice(index + 1));
      return { positionals, flags, values, restIndex: spec.stopAtPositional ? index + 1 : args.length };
    }
    if (text === null || text.length < 2 || !text.startsWith('-')) {
      if (spec.stopAtPositional) return { positionals: [...positionals, ...args.slice(index)], flags, values, restIndex: index };
      positionals.push(arg);
      continue;
    }
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = equals === -1 ? text.slice(2) : text.slice(2, equals);
      if (equals !== -1) {
        pushValue(values, `--${name}`, { value: text.slice(equals + 1), raw: arg.raw });
      } else if (longWithValue.has(name) && index + 1 < args.length) {
        index += 1;
        pushValue(values, `--${name}`, args[index]!);
      } else {
        flags.add(`--${name}`);
      }
      continue;
    }
    for (let position = 1; position < text.length; position += 1) {
      const letter = text[position]!;
      if (shortWithValue.includes(letter)) {
        if (position + 1 < text.length) {
          pushValue(values, `-${letter}`, { value: text.slice(position + 1), raw: arg.raw });
        } else if (index + 1 < args.length) {
          index += 1;
          pushValue(values, `-${letter}`, args[index]!);
        } else {
          flags.add(`-${letter}`);
        }
        break;
      }
      flags.add(`-${letter}`);
    }
  }
  return { positionals, flags, values, restIndex: index };
}

/** True when any of `names` (`-f`, `--force`) was given as a flag or with a value. */
export function hasOption(parsed: ParsedOptions, ...names: string[]): boolean {
  return names.some((name) => parsed.flags.has(name) || parsed.values.has(name));
}

/** Every value given to any of `names`. */
export function optionValues(parsed: ParsedOptions, ...names: string[]): ShellWord[] {
  return names.flatMap((name) => parsed.values.get(name) ?? []);
}

/**
 * GNU getopt accepts any unambiguous prefix of a long option (`--to-com=CMD` is `--to-command=CMD`).
 * Rewrites each abbreviated `--name[=value]` that starts one of `names` to its full spelling, so an
 * option that runs a program cannot hide behind a shortened name. A prefix of several names takes the
 * first listed (callers list the options that run programs first: a prefix tar would reject as ambiguous
 * reads as the more dangerous one). `exact` names are real options that win as typed (`--checkpoint`).
 */
export function expandLongAbbreviations(args: readonly ShellWord[], names: readonly string[], exact: readonly string[] = []): ShellWord[] {
  return args.map((arg) => {
    const text = arg.value;
    if (text === null || !text.startsWith('--') || text === '--') return arg;
    const equals = text.indexOf('=');
    const name = equals === -1 ? text.slice(2) : text.slice(2, equals);
    if (names.includes(name) || exact.includes(name)) return arg;
    const full = names.find((candidate) => candidate.startsWith(name));
    if (full === undefined) return arg;
    return { value: `--${full}${equals === -1 ? '' : text.slice(equals)}`, raw: arg.raw };
  });
}

/**
 * True when an option word is only known at run time (`--to-command="$CMD"`, `-I"$X"`): it may be an
 * option that runs a program, so a program with such options cannot read it as a plain flag.
 */
export function hasDynamicOption(args: readonly ShellWord[]): boolean {
  return args.some((word) => word.value === null && /^["']*-/.test(word.raw));
}
