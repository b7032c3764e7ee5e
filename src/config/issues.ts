// zod's issues, reworded for people editing a config file: one problem per unknown key, "required"
// for a missing key, and no "Invalid input:" preamble in front of what is actually wrong.
import type { z } from 'zod';
import { isPlainObject, type PathProblem } from './key-path.js';

type Issue = z.core.$ZodIssue;

export function problemsFromIssues(issues: readonly Issue[], input: unknown): PathProblem[] {
  return issues.flatMap((issue): PathProblem[] => {
    switch (issue.code) {
      case 'unrecognized_keys':
        return issue.keys.map((key) => ({ path: [...issue.path, key], message: 'unknown key' }));
      case 'invalid_key':
        return [{ path: issue.path, message: issue.issues.map((inner) => inner.message).join('; ') }];
      case 'invalid_type':
        return [{ path: issue.path, message: isMissing(input, issue.path) ? 'required' : plain(issue.message) }];
      default:
        return [{ path: issue.path, message: plain(issue.message) }];
    }
  });
}

function plain(message: string): string {
  return message.replace(/^Invalid (input|option): /, '');
}

function isMissing(input: unknown, path: readonly PropertyKey[]): boolean {
  let node = input;
  for (const [index, key] of path.entries()) {
    const isLast = index === path.length - 1;
    if (Array.isArray(node) && typeof key === 'number') {
      if (isLast) return key >= node.length;
      node = node[key];
    } else if (isPlainObject(node) && typeof key === 'string') {
      if (isLast) return !Object.hasOwn(node, key);
      node = node[key];
    } else {
      return false;
    }
  }
  return false;
}
