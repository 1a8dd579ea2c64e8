import {
  type Checkpoint,
  parseHfConfig,
  parseSafetensors,
  TransformerPolicy,
  weightSpecs,
} from '@taorl/model';

/** The files of the policy folder the page loads (what `taorl sft` saves: config.json and one safetensors file). */
export const POLICY_FILES = ['config.json', 'model.safetensors'] as const;

/** A file of the site, whole; a failed request or a body cut short is an error naming the file's URL. */
export async function fetchBytes(url: string): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`${url}: could not be fetched (${(error as Error).message})`);
  }
  if (!response.ok) {
    throw new Error(
      `${url}: HTTP ${response.status} ${response.statusText}; the site has no policy asset there ` +
        '(write it with `pnpm --filter @taorl/playground asset`, then build the site again)',
    );
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  // A server that compresses sends the compressed length; only an identity body must match it byte for byte.
  const identity = (response.headers.get('content-encoding') ?? 'identity') === 'identity';
  if (identity && Number.isFinite(declared) && declared !== bytes.length) {
    throw new Error(`${url}: received ${bytes.length} of ${declared} bytes (the download was cut short)`);
  }
  return bytes;
}

/**
 * The policy of a Hugging Face folder served at `folderURL` (ending in '/'): config.json and model.safetensors,
 * every tensor the config implies present with its shape; each error names the file's URL.
 */
export async function fetchPolicy(folderURL: string): Promise<TransformerPolicy> {
  const [configURL, weightsURL] = POLICY_FILES.map((name) => new URL(name, folderURL).href) as [
    string,
    string,
  ];
  const [configBytes, weightBytes] = await Promise.all([fetchBytes(configURL), fetchBytes(weightsURL)]);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(configBytes));
  } catch {
    throw new Error(`${configURL}: not valid JSON`);
  }
  const config = parseHfConfig(json, configURL);
  const parsed = parseSafetensors(weightsURL, weightBytes);
  const byName = new Map(parsed.tensors.map((location) => [location.name, location]));
  const tensors: Checkpoint['tensors'] = new Map();
  for (const spec of weightSpecs(config)) {
    const location = byName.get(spec.name);
    if (location === undefined) {
      throw new Error(`${weightsURL}: no tensor "${spec.name}", which ${configURL} implies`);
    }
    if (location.shape.join(',') !== spec.shape.join(',')) {
      throw new Error(
        `${weightsURL}: tensor "${spec.name}" has shape [${location.shape}], ${configURL} implies [${spec.shape}]`,
      );
    }
    tensors.set(spec.name, parsed.read(location));
  }
  return new TransformerPolicy({ config, tensors });
}
