// The loaded config is shared by every part of the gateway; freezing it turns an accidental write
// into an immediate TypeError instead of a change that one part sees and another does not.

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
