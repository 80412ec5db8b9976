import type { ScanRule } from '../scan-types.js';
import { matchLines } from './line-rule.js';

/** SKL-3 `prompt-injection`: phrasing that tries to override the agent's instructions or hide actions from the user. */
export const promptInjection: ScanRule = {
  id: 'prompt-injection',
  severity: 'quarantine',
  description: 'contains phrasing that overrides instructions or hides actions from the user',
  checkText: (file) =>
    matchLines(
      file,
      'prompt-injection',
      'quarantine',
      [
        /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|preceding|system|other)\s+(?:instructions|prompts?|rules|directions|guidelines)/i,
        /\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify|show|mention\s+(?:this\s+)?to|alert)\s+the\s+(?:user|operator|human)/i,
        /\bwithout\s+(?:asking|telling|informing|notifying)\s+the\s+(?:user|operator|human)/i,
        /\b(?:reveal|print|output|exfiltrate|send)\s+(?:your\s+|the\s+)?(?:system\s+prompt|hidden\s+instructions)/i,
        /\byou\s+are\s+now\s+(?:in\s+)?(?:developer|god|jailbreak|DAN|unrestricted)\b/i,
        /\b(?:bypass|disable|turn\s+off)\s+(?:the\s+)?(?:approval|safety|sandbox|guardrails?|permission\s+checks?)/i,
      ],
      'contains phrasing that overrides instructions or hides actions from the user',
    ),
};
