/** Whether dist/ holds the current lib/ and fixtures/ (scripts/compiled-is-current.js). */
export function compiledIsCurrent(root: string): boolean;
