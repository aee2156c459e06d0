// A source named on the command line (`sessions claude`, `show codex/…`): a typo is a usage
// error with the nearest name, not a failure of the source.
import { isSourceName, sourceNames } from '../memory/sources.js';
import { unknownWord } from './suggest.js';

export function requireSourceName(name: string): string {
  if (!isSourceName(name)) throw unknownWord('source', name, sourceNames());
  return name;
}

/** For a ref or a recency selector: only a ref (`codex/3f2a/2`) names a source. */
export function requireRefSource(spec: string): void {
  const slash = spec.indexOf('/');
  if (slash > 0) requireSourceName(spec.slice(0, slash));
}
