/** A name -> factory table (verl's register_adv_est style) so a config string selects an implementation. */
export interface Registry<F> {
  register(name: string, factory: F, options?: { replace?: boolean }): void;
  get(name: string): F;
  names(): string[];
}

export function createRegistry<F>(kind: string, initial: ReadonlyArray<readonly [string, F]>): Registry<F> {
  const factories = new Map<string, F>(initial);
  return {
    register(name, factory, options = {}) {
      if (factories.has(name) && options.replace !== true) {
        throw new Error(`${kind} '${name}' is already registered; pass { replace: true } to replace it`);
      }
      factories.set(name, factory);
    },
    get(name) {
      const factory = factories.get(name);
      if (factory === undefined) {
        throw new Error(`unknown ${kind} '${name}' (registered: ${[...factories.keys()].join(', ')})`);
      }
      return factory;
    },
    names: () => [...factories.keys()],
  };
}
