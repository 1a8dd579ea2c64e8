// The Node entry: Hugging Face model folders on disk (load, save, snapshot reads of safetensors files) and the
// policy factories that save to them. Everything it shares with the portable entry comes from '@taorl/model', so
// TransformerPolicy is one class whichever entry a user imports.

export { loadCheckpoint, saveCheckpoint } from './files/checkpoint';
export { COMPANION_FILES } from './files/companion-files';
export { createTinyPolicy, folderStore, initPolicy, loadPolicy } from './files/folder-policy';
export {
  DATA_SHA256,
  encodeSafetensorsFile,
  readSafetensors,
  type SafetensorsFile,
} from './files/safetensors-file';
