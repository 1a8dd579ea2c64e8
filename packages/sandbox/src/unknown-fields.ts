import { didYouMean } from '@taorl/plugin-registry';

/**
 * Throws a TypeError for the first own field of `value` that is not in `known`, so that a misspelled option
 * (`wrkers`, `memoryMB`) fails loudly instead of leaving the default in force. `where` names the object in the
 * message, e.g. `createSandbox` or `createSandbox limits`.
 */
export function rejectUnknownFields(value: object, known: readonly string[], where: string): void {
  for (const field of Object.keys(value)) {
    if (known.includes(field)) continue;
    throw new TypeError(
      `${where}: unknown option ${JSON.stringify(field)}${didYouMean(field, known)}; known: ${known.join(', ')}`,
    );
  }
}
