import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  createRegistry,
  noOptions,
  type RawOptions,
  type RegisterOptions,
  type RegisterWithSchema,
  registerFunction,
  registeringFrom,
  UNKNOWN_PLUGIN,
} from '../src/index';

interface Greeter {
  greet(who: string): string;
}

// Each test uses its own package name, so the registries (shared per process on globalThis) do not meet.
let packages = 0;
const freshRegistry = () => createRegistry<Greeter>(`registry-test-${++packages}`, 'greeter');

const hello = () => ({ greet: (who: string) => `hello ${who}` });

describe('plug-in registry', () => {
  it('builds a registered plug-in by name and lists the names in registration order', () => {
    const greeters = freshRegistry();
    greeters.registerBuiltIn('hello', hello, noOptions);
    greeters.register('shout', (options) => ({
      greet: (who) => `${String(options.prefix ?? 'HEY')} ${who}`,
    }));
    expect(greeters.names()).toEqual(['hello', 'shout']);
    expect(greeters.create('hello').greet('you')).toBe('hello you');
    expect(greeters.create('shout', { prefix: 'OI' }).greet('you')).toBe('OI you');
  });

  it('refuses a second registration unless replace is set', () => {
    const greeters = freshRegistry();
    greeters.register('hello', hello);
    expect(() => greeters.register('hello', hello)).toThrow(
      'greeter "hello" is already registered; pass { replace: true } to replace it',
    );
    greeters.register('hello', () => ({ greet: () => 'replaced' }), { replace: true });
    expect(greeters.create('hello').greet('x')).toBe('replaced');
  });

  it('keeps a registered plug-in when a build registers its built-in of the same name again', () => {
    const greeters = freshRegistry();
    greeters.register('hello', () => ({ greet: () => 'user' }));
    greeters.registerBuiltIn('hello', hello);
    expect(greeters.create('hello').greet('x')).toBe('user');
  });

  it('names the closest and all registered plug-ins for an unknown name', () => {
    const greeters = freshRegistry();
    greeters.register('hello', hello);
    greeters.register('goodbye', hello);
    expect(() => greeters.create('helo')).toThrow(
      'unknown greeter "helo" (did you mean "hello"?); registered: hello, goodbye',
    );
    expect(() => greeters.create('zzz')).toThrow('unknown greeter "zzz"; registered: hello, goodbye');
    // A caller tells an unknown name from a bad option by the error's code.
    expect(() => greeters.create('zzz')).toThrow(expect.objectContaining({ code: UNKNOWN_PLUGIN }));
  });

  it('validates options with a zod schema, naming the option, and hands the factory the parsed value', () => {
    const greeters = freshRegistry();
    const schema = z.strictObject({ times: z.number().int().min(1).default(1) });
    greeters.register('repeat', ({ times }) => ({ greet: (who) => who.repeat(times) }), { schema });
    expect(greeters.create('repeat').greet('a')).toBe('a');
    expect(greeters.create('repeat', { times: 3 }).greet('a')).toBe('aaa');
    expect(() => greeters.create('repeat', { times: 0 })).toThrow(/^greeter "repeat": option 'times': /);
    expect(() => greeters.create('repeat', { tims: 2 })).toThrow(
      `greeter "repeat": unknown option 'tims' (did you mean "times"?); known: times`,
    );
    expect(() => greeters.checkOptions('repeat', { times: 1.5 })).toThrow(/option 'times'/);
    expect(() => greeters.checkOptions('repeat', { times: 2 })).not.toThrow();
  });

  it("names an unknown option of a nested strict object with the nested schema's known options", () => {
    const greeters = freshRegistry();
    const schema = z.strictObject({
      style: z.strictObject({ loud: z.boolean(), prefix: z.string() }).optional(),
    });
    greeters.register('styled', () => ({ greet: (who) => who }), { schema });
    expect(() => greeters.create('styled', { style: { lowd: true, loud: false, prefix: '' } })).toThrow(
      `greeter "styled": unknown option 'style.lowd' (did you mean "loud"?); known: loud, prefix`,
    );
    // A schema that shows no fields (a strict object inside a pipe) still names the option.
    const piped = z.strictObject({ times: z.number() }).pipe(z.transform((value) => value));
    greeters.register('piped', () => ({ greet: (who) => who }), { schema: piped });
    expect(() => greeters.create('piped', { times: 1, tims: 2 })).toThrow(
      /^greeter "piped": unknown option 'tims'$/,
    );
  });

  it('lets a function schema check the options and rejects non-object options', () => {
    const greeters = freshRegistry();
    greeters.registerBuiltIn('hello', hello, noOptions);
    expect(() => greeters.create('hello', { loud: true })).toThrow(
      /^greeter "hello": takes no options, got 'loud'$/,
    );
    expect(() => greeters.create('hello', [] as never)).toThrow('greeter "hello": options must be an object');
  });

  it('names the plug-in in every option error, whatever checks the options', () => {
    const greeters = freshRegistry();
    const times = (options: Readonly<Record<string, unknown>>) => {
      if (typeof options.times !== 'number') throw new TypeError(`option 'times' must be a number`);
      return { times: options.times };
    };
    const repeat = ({ times: n }: { times: number }) => ({ greet: (who: string) => who.repeat(n) });
    greeters.register('zod-schema', repeat, { schema: z.strictObject({ times: z.number() }) });
    greeters.register('function-schema', repeat, { schema: times });
    // A factory that checks its options itself, as the built-ins do, naming itself as they do when called directly.
    greeters.register('own-check', (options) => {
      if (options.times !== undefined) throw new RangeError("own-check: option 'times' is not supported");
      return hello();
    });
    greeters.register('labelled', () => {
      throw new Error('greeter "labelled": already names itself');
    });
    const bad = { times: 'x' };
    expect(() => greeters.create('zod-schema', bad)).toThrow(/^greeter "zod-schema": option 'times': /);
    expect(() => greeters.create('function-schema', bad)).toThrow(
      /^greeter "function-schema": option 'times' must be a number$/,
    );
    expect(() => greeters.checkOptions('function-schema', bad)).toThrow(/^greeter "function-schema": /);
    expect(() => greeters.create('function-schema', bad)).toThrow(TypeError);
    expect(() => greeters.create('own-check', bad)).toThrow(
      /^greeter "own-check": option 'times' is not supported$/,
    );
    expect(() => greeters.create('own-check', bad)).toThrow(RangeError);
    expect(() => greeters.create('labelled')).toThrow(/^greeter "labelled": already names itself$/);
    expect(greeters.create('function-schema', { times: 2 }).greet('a')).toBe('aa');
  });

  it('refuses an empty name and a factory that is not a function', () => {
    const greeters = freshRegistry();
    expect(() => greeters.register('', hello)).toThrow('a greeter needs a non-empty name');
    expect(() => greeters.register('x', 'nope' as never)).toThrow(
      'greeter "x": the factory must be a function',
    );
  });

  it('checks the shape of what a factory builds, naming the plug-in and the module that registered it', async () => {
    const greeters = createRegistry<Greeter>(`registry-test-${++packages}`, 'greeter', {
      methods: ['greet'],
    });
    greeters.register('fine', hello);
    greeters.register('no-method', () => ({ greet: 'hi' }) as never);
    await registeringFrom('./my-greeters.js', async () => {
      greeters.register('nothing', () => undefined as never);
    });
    expect(greeters.create('fine').greet('x')).toBe('hello x');
    expect(() => greeters.create('no-method')).toThrow(
      'greeter "no-method": its factory is of the wrong shape: the object it built has no method greet()',
    );
    expect(() => greeters.create('nothing')).toThrow(
      'greeter "nothing" (registered by plug-in module \'./my-greeters.js\'): its factory is of the wrong ' +
        'shape: expected an object with greet(), got undefined',
    );
    // A plug-in that is a function (a policy loss) must be one.
    const losses = createRegistry<() => number>(`registry-test-${++packages}`, 'loss', { callable: true });
    losses.register('object', () => ({}) as never);
    expect(() => losses.create('object')).toThrow(
      'loss "object": its factory is of the wrong shape: expected a function, got an object',
    );
    // The origin is only the import's: a plug-in registered afterwards has none.
    greeters.register('later', () => null as never);
    expect(() => greeters.create('later')).toThrow(/^greeter "later": its factory/);
  });

  it('shares its entries with every registry made for the same package and kind (the other build)', () => {
    const name = `registry-test-shared-${++packages}`;
    const esm = createRegistry<Greeter>(name, 'greeter');
    const cjs = createRegistry<Greeter>(name, 'greeter');
    esm.register('hello', hello);
    expect(cjs.create('hello').greet('x')).toBe('hello x');
    const key = Symbol.for(`taorl.${name}.greeter`);
    expect(
      (globalThis as unknown as Record<symbol, { entries: Map<string, unknown> }>)[key]?.entries.has('hello'),
    ).toBe(true);
  });

  it("makes a package's register function: both forms reach the registry, replace and schema included", () => {
    const greeters = freshRegistry();
    const registerGreeter = registerFunction(greeters);
    registerGreeter('hello', hello);
    registerGreeter('repeat', ({ times }) => ({ greet: (who) => who.repeat(times) }), {
      schema: z.strictObject({ times: z.number().int().min(1) }),
    });
    expect(greeters.create('repeat', { times: 2 }).greet('a')).toBe('aa');
    expect(() => greeters.create('repeat', { times: 0 })).toThrow(/^greeter "repeat": option 'times': /);
    expect(() => registerGreeter('hello', hello)).toThrow('greeter "hello" is already registered');
    registerGreeter('hello', () => ({ greet: () => 'replaced' }), { replace: true });
    expect(greeters.create('hello').greet('x')).toBe('replaced');
    // The two signatures the packages' API reference and API report show.
    expectTypeOf(registerGreeter).toEqualTypeOf<{
      (name: string, factory: (options: RawOptions) => Greeter, options?: RegisterOptions): void;
      <O>(name: string, factory: (options: O) => Greeter, options: RegisterWithSchema<O>): void;
    }>();
  });
});
