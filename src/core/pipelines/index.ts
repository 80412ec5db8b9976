export * from './condition-expression.js';
export * from './cron.js';
export * from './output-schema-check.js';
export * from './pipeline-definition.js';
export * from './pipeline-issue.js';
export * from './placeholders.js';
export * from './space-mode-extras.js';
export * from './validate-pipeline.js';
