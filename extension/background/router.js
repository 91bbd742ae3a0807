// One table from message type to handler. Routes marked `page` may be called by content scripts;
// the rest only by the extension's own pages (popup, options).

import { MSG } from '../shared/messages.js';
import { getLists, setDefaultList } from './account.js';
import { disconnect, isExtensionSender, openConnectPage, receiveToken, setServer, setStaySignedIn } from './auth.js';
import { lookupPapers } from './lookup.js';
import { flushQueue } from './queue.js';
import { savePaper, undoSave, unsavePaper } from './saves.js';
import { getState } from './state.js';

export const ROUTES = {
  [MSG.LOOKUP]: { page: true, run: lookupPapers },
  [MSG.SAVE]: { page: true, run: savePaper },
  [MSG.UNSAVE]: { page: true, run: unsavePaper },
  [MSG.LISTS]: { page: true, run: getLists },
  [MSG.TOKEN]: { page: true, run: receiveToken },
  [MSG.STATE]: { page: false, run: getState },
  [MSG.UNDO]: { page: false, run: undoSave },
  [MSG.CONNECT]: { page: false, run: openConnectPage },
  [MSG.DISCONNECT]: { page: false, run: disconnect },
  [MSG.SET_DEFAULT_LIST]: { page: false, run: setDefaultList },
  [MSG.SET_SERVER]: { page: false, run: setServer },
  [MSG.STAY_SIGNED_IN]: { page: false, run: setStaySignedIn },
  [MSG.FLUSH]: { page: false, run: async (ctx) => ({ queued: await flushQueue(ctx) }) },
};

// Always resolves to {ok, result} or {ok: false, error}: a content script never sees a throw.
export async function handleMessage(ctx, message, sender) {
  const route = ROUTES[message?.type];
  if (!route) return { ok: false, error: { kind: 'unknown-message', detail: String(message?.type) } };
  if (!route.page && !isExtensionSender(ctx, sender)) return { ok: false, error: { kind: 'forbidden', detail: message.type } };
  try {
    return { ok: true, result: await route.run(ctx, message.payload ?? {}, sender) };
  } catch (error) {
    return { ok: false, error: { kind: error?.kind ?? 'internal', detail: String(error?.message ?? error) } };
  }
}
