import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSkillFile, SkillFormatError, skillNameProblem } from '../../../src/core/skills/skill-frontmatter.js';

function file(frontmatter: string, body = 'Do the thing.\n'): string {
  return `---\n${frontmatter}\n---\n\n${body}`;
}

function fieldOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SkillFormatError);
    return (error as SkillFormatError).field;
  }
  throw new Error('expected a SkillFormatError');
}

describe('parseSkillFile (SKL-2, Agent Skills format)', () => {
  it('parses every documented field and the body', () => {
    const parsed = parseSkillFile(
      file('name: pdf-tools\ndescription: Fill PDF forms.\nlicense: MIT\ncompatibility: needs python3\nmetadata:\n  author: someone\nallowed-tools: Bash(git:*) Read'),
      'pdf-tools',
    );
    expect(parsed.frontmatter).toEqual({
      name: 'pdf-tools',
      description: 'Fill PDF forms.',
      license: 'MIT',
      compatibility: 'needs python3',
      metadata: { author: 'someone' },
      allowedTools: ['Bash(git:*)', 'Read'],
    });
    expect(parsed.body).toBe('Do the thing.\n');
  });

  it('names the field of each problem', () => {
    expect(fieldOf(() => parseSkillFile('no frontmatter'))).toBe('frontmatter');
    expect(fieldOf(() => parseSkillFile(file('name: [unclosed')))).toBe('frontmatter');
    expect(fieldOf(() => parseSkillFile(file('description: x')))).toBe('name');
    expect(fieldOf(() => parseSkillFile(file('name: Bad_Name\ndescription: x')))).toBe('name');
    expect(fieldOf(() => parseSkillFile(file('name: a\ndescription: x'), 'b'))).toBe('name');
    expect(fieldOf(() => parseSkillFile(file('name: a')))).toBe('description');
    expect(fieldOf(() => parseSkillFile(file(`name: a\ndescription: ${'x'.repeat(1025)}`)))).toBe('description');
    expect(fieldOf(() => parseSkillFile(file('name: a\ndescription: x\nlicense: 3')))).toBe('license');
    expect(fieldOf(() => parseSkillFile(file('name: a\ndescription: x\nmetadata: [1]')))).toBe('metadata');
    expect(fieldOf(() => parseSkillFile(file('name: a\ndescription: x\nmetadata:\n  k: 1')))).toBe('metadata');
    expect(fieldOf(() => parseSkillFile(file('name: a\ndescription: x\nallowed-tools: [Read]')))).toBe('allowed-tools');
    expect(fieldOf(() => parseSkillFile(file('name: a\ndescription: x\ncompatibility: ""')))).toBe('compatibility');
  });

  it('accepts exactly the names of the rule (property)', () => {
    const segment = fc.stringMatching(/^[a-z0-9]{1,8}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
        const name = segments.join('-');
        const expectedValid = name.length <= 64;
        expect(skillNameProblem(name) === null).toBe(expectedValid);
        if (expectedValid) expect(parseSkillFile(file(`name: "${name}"\ndescription: d`), name).frontmatter.name).toBe(name);
      }),
    );
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 70 }), (name) => {
        const valid = name.length <= 64 && /^[a-z0-9]+(-[a-z0-9]+)*$/.test(name);
        expect(skillNameProblem(name) === null).toBe(valid);
      }),
    );
  });

  it('never throws anything but a SkillFormatError on arbitrary text (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        try {
          parseSkillFile(`---\n${text}\n---\n`);
        } catch (error) {
          expect(error).toBeInstanceOf(SkillFormatError);
        }
      }),
    );
  });
});
