/** A plug-in module as the config or `--plugin` named it, and the file that was imported for it (in config/, where
 * a run record that lists it is read back). */
export interface PluginModule {
  /** As written: a path (`./my-plugins.js`, a package folder) or a package name (`@me/taorl-plugins`). */
  module: string;
  /** The absolute path of the file imported. */
  path: string;
}
