// The source table as the CLI sees it. Captured history lives in the store layer, above the
// memory layer that owns the table, so it is registered here, on the way in.
import { registerSource } from '../memory/sources.js';
import { historySource } from '../store/history-source.js';

registerSource(historySource);

export { getSource, isSourceName, sourceNames } from '../memory/sources.js';
