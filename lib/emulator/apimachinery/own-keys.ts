/**
 * Member access for objects whose keys are user data (ConfigMap data, labels, free-form fields
 * of custom resources). A real server stores `__proto__`, `constructor`, `toString`… as
 * ordinary keys; in JS `o[k] = v` with k `__proto__` changes the prototype instead of storing
 * a member, and `o[k]` of a key the object lacks reads Object.prototype's members
 * (`constructor`, `toString`, `__proto__`). These two never do either.
 */

/** The object's own member `key`, never an inherited one. */
export function ownValue<T>(o: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** Stores `value` as the own member `key`, `__proto__` included. */
export function setOwn<T>(o: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}
