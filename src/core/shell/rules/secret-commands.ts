import type { EffectClass } from '../../effect-classes.js';
import { NO_EFFECT, type ProgramRule } from '../program-outcome.js';
import { isSecretVariable } from '../path-location.js';

/** `printenv` with no argument dumps every variable, tokens included; with names, only secret-looking names count. */
const printenv: ProgramRule = (args) => {
  if (args.length === 0) return { classes: ['secretAccess'] };
  return args.some((word) => word.value === null || isSecretVariable(word.value)) ? { classes: ['secretAccess'] } : NO_EFFECT;
};

const readsSecret: ProgramRule = () => ({ classes: ['secretAccess'] });

/** gpg options that talk to a keyserver or fetch keys from a URL or a mail domain (network egress). */
const GPG_NETWORK = ['--recv-keys', '--receive-keys', '--send-keys', '--fetch-keys', '--refresh-keys', '--search-keys', '--locate-keys', '--locate-external-keys', '--keyserver', '--auto-key-locate', '--auto-key-retrieve'];

/** `gpg` decrypting or exporting secret keys reads secrets; keyserver and key-fetching options reach the network; other uses (verify, list) neither. */
const gpg: ProgramRule = (args) => {
  const classes: EffectClass[] = [];
  if (args.some((word) => ['-d', '--decrypt', '--export-secret-keys', '--export-secret-subkeys'].includes(word.value ?? ''))) classes.push('secretAccess');
  if (args.some((word) => word.value === null || GPG_NETWORK.some((option) => word.value === option || word.value!.startsWith(`${option}=`)))) classes.push('networkEgress');
  return classes.length > 0 ? { classes } : NO_EFFECT;
};

/** macOS keychain: the `find-*-password` queries return secrets. */
const security: ProgramRule = (args) => {
  const action = args[0]?.value ?? '';
  if (action.startsWith('find-') || action === 'dump-keychain' || action === 'export') return { classes: ['secretAccess'] };
  if (action.startsWith('add-') || action.startsWith('delete-') || action.startsWith('set-')) return { classes: ['secretAccess', 'fileWriteOutsideWorktree'] };
  return NO_EFFECT;
};

/** Cloud CLIs: secret-returning calls are secretAccess; everything else talks to the cloud and may change it (unknown). */
function cloudCli(secretPatterns: readonly RegExp[], readVerbs: RegExp): ProgramRule {
  return (args) => {
    const line = args.map((word) => word.value ?? '$').join(' ');
    if (secretPatterns.some((pattern) => pattern.test(line))) return { classes: ['secretAccess', 'networkEgress'] };
    if (readVerbs.test(line)) return { classes: ['networkEgress'] };
    return { classes: ['networkEgress'], unknown: true };
  };
}

/** Rules for commands whose purpose is to reveal credentials (secretAccess, POL-2). */
export const SECRET_COMMAND_RULES: Readonly<Record<string, ProgramRule>> = {
  printenv,
  gpg,
  gpg2: gpg,
  security,
  pass: (args) => (args[0]?.value === 'ls' || args[0]?.value === 'find' ? NO_EFFECT : { classes: ['secretAccess'] }),
  op: readsSecret,
  vault: readsSecret,
  keyring: readsSecret,
  'secret-tool': readsSecret,
  aws: cloudCli([/secretsmanager get-secret-value/, /ssm get-parameters?\b.*--with-decryption/, /configure (get|export-credentials)/, /sts get-session-token/, /ecr get-login-password/], /^(\S+ )?(s3 ls|\S+ (describe|list|get)-\S*)/),
  gcloud: cloudCli([/auth (print-access-token|print-identity-token|application-default print-access-token)/, /secrets versions access/], /\b(list|describe|get-value|info)\b/),
  az: cloudCli([/account get-access-token/, /keyvault secret show/], /\b(list|show)\b/),
};
