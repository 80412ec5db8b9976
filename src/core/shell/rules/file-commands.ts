import { expandLongAbbreviations, hasDynamicOption, hasOption, optionValues, parseOptions } from '../option-parser.js';
import { CURRENT_DIRECTORY, NO_EFFECT, type NestedCommand, type ProgramOutcome, type ProgramRule } from '../program-outcome.js';
import { dynamicWord, type ShellWord } from '../shell-words.js';
import { sedScriptRunsOrWrites } from './sed-script.js';

/** Deleting commands: fileDelete (POL-2), plus a write wherever the deleted paths are. */
function deleting(spec: { short?: string; long?: string[] } = {}): ProgramRule {
  return (args) => {
    const { positionals } = parseOptions(args, spec);
    return { classes: ['fileDelete'], writes: positionals };
  };
}

/** The destination of `cp`/`mv`/`ln`/`install`: `-t DIR`, else the last positional (or `.` for one-argument `ln`). */
function destination(args: readonly ShellWord[], short: string, long: string[], singleMeansHere: boolean): { target: ShellWord[]; sources: ShellWord[] } {
  const parsed = parseOptions(args, { short, long });
  const explicit = optionValues(parsed, '-t', '--target-directory');
  if (explicit.length > 0) return { target: explicit, sources: parsed.positionals };
  const { positionals } = parsed;
  if (positionals.length === 0) return { target: [], sources: [] };
  if (positionals.length === 1) return { target: singleMeansHere ? [CURRENT_DIRECTORY] : [positionals[0]!], sources: positionals };
  return { target: [positionals[positionals.length - 1]!], sources: positionals.slice(0, -1) };
}

const copy: ProgramRule = (args) => ({ writes: destination(args, 'tSb', ['target-directory', 'suffix', 'backup'], false).target });

/** `mv` changes both ends: the target appears and the sources disappear from where they were. */
const move: ProgramRule = (args) => {
  const { target, sources } = destination(args, 'tSb', ['target-directory', 'suffix', 'backup'], false);
  return { writes: [...target, ...sources] };
};

const link: ProgramRule = (args) => ({ writes: destination(args, 'tSb', ['target-directory', 'suffix', 'backup'], true).target });

const install: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'mogtSb', long: ['mode', 'owner', 'group', 'target-directory', 'suffix'] });
  if (hasOption(parsed, '-d', '--directory')) return { writes: parsed.positionals };
  const explicit = optionValues(parsed, '-t', '--target-directory');
  if (explicit.length > 0) return { writes: explicit };
  const last = parsed.positionals[parsed.positionals.length - 1];
  return { writes: last ? [last] : [] };
};

/** Every positional is written (`mkdir`, `touch`, `tee`, `truncate`, `shred` targets…). */
function writesPositionals(spec: { short?: string; long?: string[] } = {}): ProgramRule {
  return (args) => ({ writes: parseOptions(args, spec).positionals });
}

/** `chmod MODE FILE…`, `chown OWNER FILE…`: the first positional is not a path unless `--reference` replaced it. */
const changeAttributes: ProgramRule = (args) => {
  const parsed = parseOptions(args, { long: ['reference', 'from'] });
  const files = hasOption(parsed, '--reference') ? parsed.positionals : parsed.positionals.slice(1);
  return { writes: files };
};

/** GNU sed: `-i` edits files in place; a script that can run or write (`e`, `w`, `s///e`, behind any address) is unknown code. */
const sed: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'efl', long: ['expression', 'file', 'line-length'] });
  const scripts = optionValues(parsed, '-e', '--expression');
  const scriptFiles = optionValues(parsed, '-f', '--file');
  let files = parsed.positionals;
  if (scripts.length === 0 && scriptFiles.length === 0) {
    if (files[0]) scripts.push(files[0]);
    files = files.slice(1);
  }
  const inPlace = hasOption(parsed, '-i', '--in-place');
  const scriptUnknown = scriptFiles.length > 0 || scripts.some((script) => script.value === null || sedScriptRunsOrWrites(script.value));
  if (scriptUnknown) return { unknownCode: true, writes: inPlace ? files : [] };
  return inPlace ? { writes: files } : NO_EFFECT;
};

/** `dd of=PATH` writes PATH. */
const dd: ProgramRule = (args) => ({
  writes: args.flatMap((arg) => {
    if (arg.value !== null) return arg.value.startsWith('of=') ? [{ value: arg.value.slice(3), raw: arg.raw }] : [];
    return arg.raw.startsWith('of=') ? [dynamicWord(arg.raw)] : [];
  }),
});

/** Shell source a program hands to `/bin/sh -c` (tar `--to-command`, split `--filter`): classified as that shell command. */
function shellCommand(source: ShellWord): NestedCommand {
  return { argv: [{ value: 'sh', raw: 'sh' }, { value: '-c', raw: '-c' }, source] };
}

/** A word that is only part of another (`exec=CMD`): the rest, still unknown when the whole is. */
function rest(word: ShellWord, prefixLength: number): ShellWord {
  return word.value === null ? word : { value: word.value.slice(prefixLength), raw: word.raw };
}

const TAR_SHORT_VALUES = 'fCTXbHgKLNVIF';
/** tar's long options that run a program, first so an ambiguous abbreviation reads as one of them. */
const TAR_PROGRAM_OPTIONS = ['checkpoint-action', 'to-command', 'use-compress-program', 'info-script', 'new-volume-script', 'rsh-command', 'rmt-command'];
const TAR_LONG_VALUES = [...TAR_PROGRAM_OPTIONS, 'file', 'directory', 'files-from', 'exclude-from', 'exclude', 'transform', 'owner', 'group', 'mode', 'format', 'newer', 'after-date', 'label', 'force-local'];

/** Old-style bundled letters without a dash (`tar xzfI a.tgz prog`): each letter that takes a value takes the next word, in order. */
function tarOldStyle(args: readonly ShellWord[]): ShellWord[] {
  const first = args[0];
  if (!first || first.value === null || first.value === '' || first.value.startsWith('-')) return [...args];
  const out: ShellWord[] = [];
  let next = 1;
  for (const letter of first.value) {
    out.push({ value: `-${letter}`, raw: first.raw });
    if (TAR_SHORT_VALUES.includes(letter) && next < args.length) out.push(args[next++]!);
  }
  return [...out, ...args.slice(next)];
}

/**
 * `tar`: extracting writes `-C DIR` (or here); creating writes the archive named by `-f`. Options that
 * run a program make it that program: `--checkpoint-action=exec=CMD`, `--to-command=CMD`,
 * `-I`/`--use-compress-program`, `-F`/`--info-script`/`--new-volume-script` are handed to `/bin/sh -c`
 * and classified as that command; `--rsh-command`, `--rmt-command` and a remote archive (`-f host:file`,
 * or a name only known at run time) run programs here and on another host: unseen code.
 */
const tar: ProgramRule = (args) => {
  const normalized = expandLongAbbreviations(tarOldStyle(args), TAR_LONG_VALUES, ['checkpoint']);
  const parsed = parseOptions(normalized, { short: TAR_SHORT_VALUES, long: TAR_LONG_VALUES });
  const archive = optionValues(parsed, '-f', '--file');
  const nested: NestedCommand[] = [
    ...optionValues(parsed, '--to-command', '-I', '--use-compress-program', '-F', '--info-script', '--new-volume-script').map(shellCommand),
    ...optionValues(parsed, '--checkpoint-action').flatMap((action) => (action.value === null ? [shellCommand(action)] : action.value.startsWith('exec=') ? [shellCommand(rest(action, 5))] : [])),
  ];
  const remote = !hasOption(parsed, '--force-local') && archive.some((word) => word.value === null || /^[^/:]+:/.test(word.value));
  const unknownCode = remote || hasDynamicOption(args) || hasOption(parsed, '--rsh-command', '--rmt-command');
  const runs: ProgramOutcome = { nested, ...(unknownCode ? { unknownCode: true, classes: ['networkEgress'] as const } : {}) };
  const extract = hasOption(parsed, '-x', '--extract', '--get');
  const create = hasOption(parsed, '-c', '--create', '-r', '--append', '-u', '--update', '-A', '--catenate', '--concatenate', '--delete');
  if (extract) {
    const directory = optionValues(parsed, '-C', '--directory');
    return { ...runs, writes: directory.length > 0 ? directory : [CURRENT_DIRECTORY] };
  }
  if (create) return { ...runs, writes: archive.length > 0 ? archive : [] };
  if (hasOption(parsed, '-t', '--list', '-d', '--diff', '--compare')) return runs;
  return { ...runs, writes: [CURRENT_DIRECTORY] };
};

const unzip: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'dxP' });
  if (hasOption(parsed, '-l', '-v', '-t', '-Z', '-p', '-c')) return NO_EFFECT;
  const directory = optionValues(parsed, '-d');
  return { writes: directory.length > 0 ? directory : [CURRENT_DIRECTORY] };
};

/**
 * `zip ARCHIVE FILE…` writes the archive (`-m` also deletes the inputs). `-TT CMD` / `--unzip-command CMD`
 * tests the archive with CMD through the shell instead of `unzip`: classified as that command.
 */
const zip: ProgramRule = (args) => {
  const words = expandLongAbbreviations(args, ['unzip-command']);
  const nested: NestedCommand[] = [];
  const others: ShellWord[] = [];
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index]!;
    const value = word.value;
    if (value === '--') {
      others.push(...words.slice(index));
      break;
    }
    // `-TT` is a two-letter option (`-TTcmd`, `-TT cmd`), possibly behind other letters (`-qTT`).
    const tt = value !== null && /^-[^-]/.test(value) ? value.indexOf('TT') : -1;
    if (value === '--unzip-command' || tt > 0) {
      const attached = tt > 0 ? value!.slice(tt + 2) : '';
      const command = attached !== '' ? { value: attached, raw: word.raw } : words[++index];
      if (command) nested.push(shellCommand(command));
      if (tt > 1) others.push({ value: value!.slice(0, tt), raw: word.raw });
      continue;
    }
    if (value !== null && value.startsWith('--unzip-command=')) {
      nested.push(shellCommand(rest(word, '--unzip-command='.length)));
      continue;
    }
    others.push(word);
  }
  const parsed = parseOptions(others, { short: 'bnstxiP' });
  const archive = parsed.positionals[0];
  return { classes: hasOption(parsed, '-m', '--move') ? ['fileDelete'] : [], writes: archive ? [archive] : [], nested, ...(hasDynamicOption(args) ? { unknownCode: true } : {}) };
};

/** gzip and friends replace each input with its (de)compressed twin unless they write to stdout. */
const compressor: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'S', long: ['suffix'] });
  if (hasOption(parsed, '-c', '--stdout', '--to-stdout', '-l', '--list', '-t', '--test')) return NO_EFFECT;
  return { writes: parsed.positionals.length > 0 ? parsed.positionals : [] };
};

const patch: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'pdoiFBrDVYzg', long: ['directory', 'output', 'input', 'strip', 'reject-file', 'prefix', 'suffix'] });
  if (hasOption(parsed, '--dry-run')) return NO_EFFECT;
  const output = optionValues(parsed, '-o', '--output');
  if (output.length > 0) return { writes: output };
  const directory = optionValues(parsed, '-d', '--directory');
  const file = parsed.positionals[0];
  return { writes: file ? [file] : directory.length > 0 ? directory : [CURRENT_DIRECTORY] };
};

const SORT_LONG_VALUES = ['compress-program', 'output', 'key', 'field-separator', 'temporary-directory', 'buffer-size', 'files0-from', 'parallel', 'batch-size'];

/** `sort -o FILE` writes FILE; `--compress-program=PROG` runs PROG on its temporary files (classified as that program). */
const sort: ProgramRule = (args) => {
  const parsed = parseOptions(expandLongAbbreviations(args, SORT_LONG_VALUES), { short: 'okStT', long: SORT_LONG_VALUES });
  return { writes: optionValues(parsed, '-o', '--output'), nested: optionValues(parsed, '--compress-program').map((program) => ({ argv: [program] })), ...(hasDynamicOption(args) ? { unknownCode: true } : {}) };
};

/** Reading tools whose `-o FILE` / `--output FILE` writes a file (`shuf`, `tree`, macOS `base64`). */
function outputOption(output: string[], otherValues: { short?: string; long?: string[] } = {}): ProgramRule {
  const short = [...output.filter((name) => /^-[^-]$/.test(name)).map((name) => name.slice(1)), otherValues.short ?? ''].join('');
  const long = [...output.filter((name) => name.startsWith('--')).map((name) => name.slice(2)), ...(otherValues.long ?? [])];
  return (args) => ({ writes: optionValues(parseOptions(args, { short, long }), ...output) });
}

/** `cloc --out FILE` writes FILE; `--extract-with=CMD` unpacks archives by running CMD through the shell. */
const cloc: ProgramRule = (args, context) => {
  const words = expandLongAbbreviations(args, ['extract-with', 'out', 'report-file']);
  const parsed = parseOptions(words, { long: ['extract-with', 'out', 'report-file'] });
  return { ...outputOption(['--out', '--report-file'])(words, context), nested: optionValues(parsed, '--extract-with').map(shellCommand), ...(hasDynamicOption(args) ? { unknownCode: true } : {}) };
};

/** `xxd -r IN OUT` writes OUT; a plain dump writes its second operand too. */
const xxd: ProgramRule = (args) => {
  const { positionals } = parseOptions(args, { short: 'cglosn', long: ['cols', 'groupsize', 'len', 'seek', 'name'] });
  return { writes: positionals.slice(1, 2) };
};

/** `uniq INPUT OUTPUT` writes OUTPUT. */
const uniq: ProgramRule = (args) => {
  const { positionals } = parseOptions(args, { short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars', 'group', 'all-repeated'] });
  return { writes: positionals.slice(1, 2) };
};

/** `mktemp` creates in the temp directory (outside) unless given a plain template. */
const mktemp: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'p', long: ['tmpdir', 'suffix'] });
  const directory = optionValues(parsed, '-p', '--tmpdir');
  if (directory.length > 0) return { writes: directory };
  const template = parsed.positionals[0];
  if (template && !hasOption(parsed, '-t')) return { writes: [template] };
  return { writes: [{ value: '/tmp', raw: '/tmp' }] };
};

const SPLIT_LONG_VALUES = ['filter', 'suffix-length', 'bytes', 'line-bytes', 'lines', 'number', 'additional-suffix', 'separator'];

/** `split FILE [PREFIX]` writes pieces next to the prefix (default here); `--filter=CMD` pipes each piece to CMD through the shell. */
const split: ProgramRule = (args) => {
  const parsed = parseOptions(expandLongAbbreviations(args, SPLIT_LONG_VALUES), { short: 'abCdlnt', long: SPLIT_LONG_VALUES });
  return { writes: [parsed.positionals[1] ?? CURRENT_DIRECTORY], nested: optionValues(parsed, '--filter').map(shellCommand), ...(hasDynamicOption(args) ? { unknownCode: true } : {}) };
};

/**
 * `find`: reading unless it deletes (`-delete`, fileDelete), writes (`-fprint FILE`) or runs commands
 * (`-exec`, `-execdir`, `-ok`, `-okdir`: each run is its own subcommand, `{}` standing for a found path
 * under the search roots).
 */
const find: ProgramRule = (args) => {
  let index = 0;
  // Leading options (-H, -L, -P, -O3, -D opts) come before the roots.
  while (index < args.length && /^-(H|L|P|O\d*|D)$/.test(args[index]!.value ?? '')) index += args[index]!.value === '-D' ? 2 : 1;
  const roots: ShellWord[] = [];
  while (index < args.length) {
    const value = args[index]!.value;
    if (value !== null && (value.startsWith('-') || value === '(' || value === '!' || value === ',')) break;
    roots.push(args[index]!);
    index += 1;
  }
  const searchRoots = roots.length > 0 ? roots : [CURRENT_DIRECTORY];
  const found = foundPathWord(searchRoots);
  const writes: ShellWord[] = [];
  const nested: { argv: ShellWord[] }[] = [];
  let deletes = false;
  while (index < args.length) {
    const value = args[index]!.value;
    index += 1;
    if (value === '-delete') {
      deletes = true;
      writes.push(...searchRoots);
    } else if (value === '-fprint' || value === '-fprint0' || value === '-fls' || value === '-fprintf') {
      const file = args[index];
      if (file) writes.push(file);
      index += value === '-fprintf' ? 2 : 1;
    } else if (value === '-exec' || value === '-execdir' || value === '-ok' || value === '-okdir') {
      const argv: ShellWord[] = [];
      while (index < args.length && args[index]!.value !== ';' && args[index]!.value !== '+') {
        const word = args[index]!;
        argv.push(word.raw.includes('{}') ? found : word);
        index += 1;
      }
      index += 1;
      if (argv.length > 0) nested.push({ argv });
    }
  }
  return { classes: deletes ? ['fileDelete'] : [], writes, nested };
};

/**
 * The word `{}` stands for in `find -exec`: a path below the roots. When all roots agree on where they
 * are it lives there; otherwise it is unknown.
 */
function foundPathWord(roots: readonly ShellWord[]): ShellWord {
  const first = roots[0]!;
  const allStatic = roots.every((root) => root.value !== null);
  if (!allStatic) return dynamicWord('{}');
  const values = roots.map((root) => root.value!);
  const sameKind = values.every((value) => value.startsWith('/') === values[0]!.startsWith('/') && value.startsWith('~') === values[0]!.startsWith('~'));
  if (!sameKind || roots.length > 1) return dynamicWord('{}');
  return { value: `${first.value!.replace(/\/+$/, '')}/{}`, raw: '{}' };
}

/**
 * awk programs are code: reading unless the program can run commands (`system()`, pipes) or write
 * files (`print > file`), or comes from a file we cannot see. gawk `-i inplace` edits its inputs.
 */
const awk: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'fvFiEl', long: ['file', 'assign', 'field-separator', 'include', 'load', 'exec'] });
  if (hasOption(parsed, '-f', '--file', '-E', '--exec')) return { unknownCode: true };
  const [program, ...files] = parsed.positionals;
  if (!program) return NO_EFFECT;
  const code = program.value;
  if (code === null || /\bsystem\s*\(|[^|]\|[^|]|^\||\|$|\bprintf?\b[^;{}]*>|\bgetline\b/.test(code)) return { unknownCode: true };
  const inPlace = optionValues(parsed, '-i', '--include').some((value) => value.value === 'inplace');
  return inPlace ? { writes: files } : NO_EFFECT;
};

/** `yq -i` edits files in place; otherwise it reads. */
const yq: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'opIs', long: ['output-format', 'input-format', 'indent', 'split-exp'] });
  if (!hasOption(parsed, '-i', '--inplace')) return NO_EFFECT;
  return { writes: parsed.positionals.slice(1) };
};

/** Rules for commands that create, change or delete files. */
export const FILE_COMMAND_RULES: Readonly<Record<string, ProgramRule>> = {
  rm: deleting(),
  rmdir: deleting(),
  unlink: deleting(),
  shred: deleting({ short: 'nsx', long: ['iterations', 'size', 'random-source'] }),
  trash: deleting(),
  'trash-put': deleting(),
  srm: deleting(),
  cp: copy,
  mv: move,
  ln: link,
  install,
  mkdir: writesPositionals({ short: 'm', long: ['mode', 'context'] }),
  touch: writesPositionals({ short: 'dtr', long: ['date', 'reference', 'time'] }),
  tee: writesPositionals({ long: ['output-error'] }),
  truncate: writesPositionals({ short: 'sr', long: ['size', 'reference'] }),
  chmod: changeAttributes,
  chown: changeAttributes,
  chgrp: changeAttributes,
  chattr: changeAttributes,
  setfacl: changeAttributes,
  sed,
  gsed: sed,
  dd,
  tar,
  unzip,
  zip,
  gzip: compressor,
  gunzip: compressor,
  bzip2: compressor,
  bunzip2: compressor,
  xz: compressor,
  unxz: compressor,
  zstd: compressor,
  unzstd: compressor,
  lz4: compressor,
  patch,
  sort,
  uniq,
  shuf: outputOption(['-o', '--output'], { short: 'in', long: ['head-count', 'input-range', 'random-source'] }),
  tree: outputOption(['-o'], { short: 'LPIH', long: ['filelimit', 'charset', 'sort', 'timefmt'] }),
  base64: outputOption(['-o', '--output'], { short: 'iwb', long: ['input', 'wrap', 'break'] }),
  cloc,
  xxd,
  mktemp,
  split,
  csplit: () => ({ writes: [CURRENT_DIRECTORY] }),
  find,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  yq,
};
