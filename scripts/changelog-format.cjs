// How `changeset version` writes a changelog entry (.changeset/config.json, "changelog"): the changeset's text as
// one list item, without the commit hash the default format puts first (a hash means nothing on the npm page), and
// the sibling packages a release was bumped for as one "Updated dependencies" item, where the default writes the
// same line once for every changeset of those packages.

/** @type {import('@changesets/types').GetReleaseLine} */
async function getReleaseLine(changeset) {
  const [first, ...rest] = changeset.summary.split('\n').map((line) => line.trimEnd());
  return `\n\n- ${first}\n${rest.map((line) => (line === '' ? '' : `  ${line}`)).join('\n')}`;
}

/** @type {import('@changesets/types').GetDependencyReleaseLine} */
async function getDependencyReleaseLine(_changesets, dependenciesUpdated) {
  if (dependenciesUpdated.length === 0) return '';
  const updated = dependenciesUpdated.map(({ name, newVersion }) => `  - ${name}@${newVersion}`);
  return `\n\n- Updated dependencies:\n${updated.join('\n')}`;
}

module.exports = { getReleaseLine, getDependencyReleaseLine };
