import type { EffectClass } from '../../effect-classes.js';
import { hasOption, optionValues, parseOptions } from '../option-parser.js';
import { CURRENT_DIRECTORY, type ProgramOutcome, type ProgramRule } from '../program-outcome.js';
import type { ShellWord } from '../shell-words.js';

const EGRESS: EffectClass[] = ['networkEgress'];

/** Per `gh <group> <action>`: the classes beyond network egress, or `read` for remote reads. */
const GH_ACTIONS: Readonly<Record<string, Readonly<Record<string, EffectClass[] | 'read' | 'checkout'>>>> = {
  pr: {
    create: ['prCreate'],
    new: ['prCreate'],
    merge: ['prPublish'],
    ready: ['prPublish'],
    comment: ['prPublish'],
    review: ['prPublish'],
    edit: ['prPublish'],
    close: ['prPublish'],
    reopen: ['prPublish'],
    lock: ['prPublish'],
    unlock: ['prPublish'],
    update: ['prPublish'],
    'update-branch': ['prPublish'],
    view: 'read',
    list: 'read',
    ls: 'read',
    diff: 'read',
    checks: 'read',
    status: 'read',
    checkout: 'checkout',
    co: 'checkout',
  },
  issue: {
    create: ['vendorSyncWrite'],
    new: ['vendorSyncWrite'],
    comment: ['vendorSyncWrite'],
    edit: ['vendorSyncWrite'],
    close: ['vendorSyncWrite'],
    reopen: ['vendorSyncWrite'],
    delete: ['vendorSyncWrite'],
    transfer: ['vendorSyncWrite'],
    pin: ['vendorSyncWrite'],
    unpin: ['vendorSyncWrite'],
    lock: ['vendorSyncWrite'],
    unlock: ['vendorSyncWrite'],
    develop: ['vendorSyncWrite'],
    view: 'read',
    list: 'read',
    ls: 'read',
    status: 'read',
  },
  repo: {
    create: ['vendorSyncWrite'],
    delete: ['vendorSyncWrite'],
    edit: ['vendorSyncWrite'],
    fork: ['vendorSyncWrite'],
    rename: ['vendorSyncWrite'],
    archive: ['vendorSyncWrite'],
    unarchive: ['vendorSyncWrite'],
    sync: ['vendorSyncWrite'],
    'set-default': [],
    view: 'read',
    list: 'read',
    clone: 'checkout',
  },
  release: {
    create: ['prPublish'],
    upload: ['prPublish'],
    edit: ['prPublish'],
    delete: ['prPublish'],
    'delete-asset': ['prPublish'],
    view: 'read',
    list: 'read',
    download: 'checkout',
  },
  run: { rerun: ['vendorSyncWrite'], cancel: ['vendorSyncWrite'], delete: ['vendorSyncWrite'], view: 'read', list: 'read', watch: 'read', download: 'checkout' },
  workflow: { run: ['vendorSyncWrite'], enable: ['vendorSyncWrite'], disable: ['vendorSyncWrite'], view: 'read', list: 'read' },
  secret: { set: ['vendorSyncWrite', 'secretAccess'], delete: ['vendorSyncWrite'], list: 'read' },
  variable: { set: ['vendorSyncWrite'], delete: ['vendorSyncWrite'], list: 'read', get: 'read' },
  gist: { create: ['vendorSyncWrite'], edit: ['vendorSyncWrite'], delete: ['vendorSyncWrite'], view: 'read', list: 'read', clone: 'checkout' },
  label: { create: ['vendorSyncWrite'], edit: ['vendorSyncWrite'], delete: ['vendorSyncWrite'], clone: ['vendorSyncWrite'], list: 'read' },
  project: { create: ['vendorSyncWrite'], edit: ['vendorSyncWrite'], delete: ['vendorSyncWrite'], 'item-add': ['vendorSyncWrite'], 'item-edit': ['vendorSyncWrite'], view: 'read', list: 'read' },
  auth: { token: ['secretAccess'], status: 'read', login: ['secretAccess', 'fileWriteOutsideWorktree'], logout: ['fileWriteOutsideWorktree'], refresh: ['secretAccess', 'fileWriteOutsideWorktree'], 'setup-git': ['fileWriteOutsideWorktree'], switch: ['fileWriteOutsideWorktree'] },
  extension: { install: ['packageInstall', 'fileWriteOutsideWorktree'], upgrade: ['packageInstall', 'fileWriteOutsideWorktree'], remove: ['fileWriteOutsideWorktree'], list: 'read', browse: 'read', search: 'read' },
  search: { repos: 'read', issues: 'read', prs: 'read', code: 'read', commits: 'read' },
  cache: { list: 'read', delete: ['vendorSyncWrite'] },
};

/** Groups that only read whatever follows. */
const READ_GROUPS: ReadonlySet<string> = new Set(['browse', 'status', 'search', 'help', 'version', '--version', 'completion']);

/**
 * `gh api`: a GET is a remote read; anything that sends fields or another method writes to GitHub
 * (vendorSyncWrite), and writes to pull requests are PR actions so a `prCreate` rule cannot be dodged
 * by calling the REST or GraphQL endpoint directly.
 */
function ghApi(args: readonly ShellWord[]): ProgramOutcome {
  const parsed = parseOptions(args, { short: 'XfFHpqt', long: ['method', 'field', 'raw-field', 'header', 'input', 'jq', 'template', 'preview', 'hostname', 'cache'] });
  const method = (optionValues(parsed, '-X', '--method')[0]?.value ?? '').toUpperCase();
  const fields = optionValues(parsed, '-f', '-F', '--field', '--raw-field');
  const sends = fields.length > 0 || hasOption(parsed, '--input');
  const endpoint = parsed.positionals[0]?.value ?? null;
  const writes = (method !== '' && method !== 'GET' && method !== 'HEAD') || (method === '' && sends);
  if (!writes) return { classes: EGRESS };
  const classes: EffectClass[] = ['networkEgress', 'vendorSyncWrite'];
  const body = fields.map((field) => field.value ?? field.raw).join('\n');
  if (endpoint === null) classes.push('prCreate', 'prPublish');
  else if (endpoint === 'graphql') {
    if (/createPullRequest/i.test(body) || fields.some((field) => field.value === null)) classes.push('prCreate');
    if (/(mergePullRequest|markPullRequestReadyForReview|addPullRequestReview|updatePullRequest|closePullRequest)/i.test(body) || fields.some((field) => field.value === null)) classes.push('prPublish');
  } else if (/\/pulls(\/|$|\?)/.test(endpoint)) {
    classes.push(/\/pulls\/?(\?|$)/.test(endpoint) && (method === '' || method === 'POST') ? 'prCreate' : 'prPublish');
  }
  return { classes };
}

/**
 * The GitHub CLI (POL-2): `gh pr create` → prCreate, `gh pr merge|ready` (and every other change to a
 * PR) → prPublish, issue/repo/workflow changes → vendorSyncWrite, reads → networkEgress only. Unknown
 * groups or actions are unknown.
 */
export const ghRule: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'R', long: ['repo', 'hostname'], stopAtPositional: true });
  const [groupWord, actionWord, ...rest] = parsed.positionals;
  const group = groupWord?.value;
  if (group === undefined) return { classes: EGRESS };
  if (group === null) return { unknown: true };
  if (READ_GROUPS.has(group)) return { classes: EGRESS };
  if (group === 'api') return ghApi([...(actionWord ? [actionWord] : []), ...rest]);
  const actions = GH_ACTIONS[group];
  const action = actionWord?.value;
  if (!actions || action === null) return { unknown: true };
  if (action === undefined) return { classes: EGRESS };
  const entry = actions[action];
  if (entry === undefined) return { unknown: true };
  if (entry === 'read') return { classes: EGRESS };
  if (entry === 'checkout') {
    // `gh repo clone OWNER/REPO [DIR]` writes DIR; every other download lands here.
    const operands = rest.filter((word) => !(word.value ?? '').startsWith('-'));
    const directory = group === 'repo' || group === 'gist' ? operands[1] : undefined;
    return { classes: EGRESS, writes: [directory ?? CURRENT_DIRECTORY] };
  }
  return { classes: ['networkEgress', ...entry] };
};
