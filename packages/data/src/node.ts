// The Node entry (@taorl/data/node): what reads or writes files. Modules behind it import the portable entry's
// exports from '@taorl/data' (left external in the build), never by relative path, so a class is the same object
// whichever entry a caller imports it from.
export { loadDataset } from './datasets/load';
export { type LocatedRecord, readRecords } from './datasets/records';
export { loadHfTokenizer } from './tokenizer/hf-files';
export { readTrajectories, writeTrajectories } from './trajectory/files';
