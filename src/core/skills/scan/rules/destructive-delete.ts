import type { ScanRule } from '../scan-types.js';
import { matchLines } from './line-rule.js';

/** A delete target that is not inside the skill or the worktree: `/`, `~`, `$HOME`, `..`, an absolute path, a bare glob. */
const OUTSIDE = String.raw`(?:["']?(?:\/|~|\$\{?HOME\}?|\.\.|\*|\$\{?[A-Z_]+\}?\/?\*?)(?=[\s"';/*]|$))`;

/** SKL-3 `destructive-delete`: recursive or forced deletes aimed outside the skill folder. */
export const destructiveDelete: ScanRule = {
  id: 'destructive-delete',
  severity: 'quarantine',
  description: 'deletes files outside the skill folder',
  checkText: (file) =>
    matchLines(
      file,
      'destructive-delete',
      'quarantine',
      [
        new RegExp(String.raw`\brm\s+(?:-[a-zA-Z]*[rRf][a-zA-Z]*\s+|--(?:recursive|force|no-preserve-root)\s+)+(?:--\s+)?${OUTSIDE}`),
        /\b(?:shutil\.rmtree|fs\.(?:rmSync|rm|rmdirSync|rmdir)|rimraf(?:\.sync)?|Remove-Item)\s*\(?\s*["'](?:\/|~|\.\.|[A-Za-z]:\\)/,
        /\b(?:mkfs(?:\.[a-z0-9]+)?|dd\s+[^\n]*of=\/dev\/|shred\s+[^\n]*\/dev\/)/,
        /\bfind\s+(?:\/|~|\$HOME)\S*\s[^\n]*-delete\b/,
      ],
      'deletes files outside the skill folder',
    ),
};
