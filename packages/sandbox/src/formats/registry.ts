import { hermesFormat } from './hermes';
import { markdownFormat } from './markdown';
import { tagsFormat } from './tags';
import type { ToolFormat } from './tool-format';

const formats = new Map<string, ToolFormat>();

/** Makes `getToolFormat(format.name)` return `format`; a later registration under the same name replaces it. */
export function registerToolFormat(format: ToolFormat): void {
  if (!format || typeof format.name !== 'string' || format.name === '') {
    throw new TypeError('registerToolFormat: the format needs a non-empty name');
  }
  if (
    !Array.isArray(format.stopStrings) ||
    typeof format.parse !== 'function' ||
    typeof format.render !== 'function'
  ) {
    throw new TypeError(
      `registerToolFormat: format ${JSON.stringify(format.name)} needs stopStrings, parse and render`,
    );
  }
  formats.set(format.name, format);
}

/** The format registered under `name`; throws naming the registered formats when there is none. */
export function getToolFormat(name: string): ToolFormat {
  const format = formats.get(name);
  if (!format) {
    throw new Error(
      `getToolFormat: unknown tool format ${JSON.stringify(name)}; registered: ${toolFormatNames().join(', ')}`,
    );
  }
  return format;
}

export function toolFormatNames(): string[] {
  return [...formats.keys()];
}

for (const format of [markdownFormat, hermesFormat, tagsFormat]) registerToolFormat(format);
