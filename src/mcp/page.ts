// MCP answers are paged like `show --max-chars/--cursor` (memory/page.ts): at most `max_chars`
// characters each, and a cursor that refuses to continue once the answer changed underneath it.
// Here the subject of a page is the tool and its arguments, and the words of an error speak of
// the tool's arguments rather than the CLI's flags.
import { SivtrError } from '../errors.js';
import { decodeCursor, DEFAULT_MAX_CHARS, pageOf, type Page } from '../memory/page.js';

export { DEFAULT_MAX_CHARS };
export const MIN_MAX_CHARS = 200;

/** The page of a tool's answer that `cursor` names (the first without one). */
export function toolPage(tool: string, subject: string, text: string, maxChars: number, cursorText?: string): Page {
  let cursor;
  if (cursorText !== undefined && cursorText !== '') {
    try {
      cursor = decodeCursor(cursorText);
    } catch {
      throw new SivtrError(`cursor "${cursorText.slice(0, 40)}" is not one sivtr gave`, `pass the cursor from the end of the previous ${tool} answer, or none for the first page`);
    }
    if (cursor.ref !== subject) throw new SivtrError(`that cursor continues another ${cursor.ref.split(' ')[0]} answer`, `call ${tool} with the same arguments as the page that gave it`);
  }
  try {
    return pageOf(text, { ref: subject, view: 'text' }, { maxChars, cursor });
  } catch (error) {
    if (error instanceof SivtrError) throw new SivtrError(`the ${tool} answer changed since that cursor was given`, `call ${tool} again without a cursor to start over`);
    throw error;
  }
}

/** The page as the tool's text; when more remains, a last line of its own says how to get it. */
export function pageText(page: Page, tool: string): string {
  if (page.nextCursor === undefined) return page.text;
  return `${page.text}\n[${page.total - page.end} more characters of ${page.total} — call ${tool} again with the same arguments and cursor "${page.nextCursor}"]`;
}
