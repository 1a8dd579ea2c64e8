import { createRegistry, noOptions, type RegisterOptions, type Registry } from '@taorl/plugin-registry';
import type { ToolFormat } from './tool-format';

/**
 * The tool-call formats selectable by name (docs/plug-ins.md describes the contract every taorl registry follows).
 * A format is a fixed object that takes no options; the built-ins (markdown, hermes, tags) register themselves
 * where they are defined.
 */
const formats: Registry<ToolFormat> = createRegistry<ToolFormat>('sandbox', 'tool format');

function checkFormat(format: ToolFormat): void {
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
  if (format.content !== undefined && typeof format.content !== 'function') {
    throw new TypeError(
      `registerToolFormat: format ${JSON.stringify(format.name)}: content must be a function when given`,
    );
  }
  const { instructions } = format;
  if (instructions !== undefined && (typeof instructions !== 'string' || instructions.trim() === '')) {
    throw new TypeError(
      `registerToolFormat: format ${JSON.stringify(format.name)}: instructions must be a non-empty string when ` +
        `given, got ${JSON.stringify(instructions)}`,
    );
  }
}

/**
 * Makes `getToolFormat(format.name)` return `format`. A second registration of a name is an error unless
 * `{ replace: true }` is given.
 */
export function registerToolFormat(format: ToolFormat, options: RegisterOptions = {}): void {
  checkFormat(format);
  formats.register(format.name, () => format, {
    ...options,
    schema: noOptions,
  });
}

/** Registers one of this package's formats where it is defined (once per process, see registerBuiltIn). */
export function registerBuiltInFormat(format: ToolFormat): void {
  formats.registerBuiltIn(format.name, () => format, noOptions);
}

/**
 * The format registered under `name`; an unknown name throws naming the close and the registered ones, and any
 * option throws (formats take none).
 */
export function getToolFormat(name: string, options: Readonly<Record<string, unknown>> = {}): ToolFormat {
  return formats.create(name, options);
}

export function toolFormatNames(): string[] {
  return formats.names();
}
