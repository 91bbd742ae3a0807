// Message types between the content scripts, popup, options and the service worker.
// Content scripts are classic scripts and cannot import this file: they spell the same strings,
// and test/messages.test.js checks that every string they send is listed here.

export const MSG = Object.freeze({
  // {ids} -> {topics: [[slug, name, area]], papers: {id: [topic, confidence, shown, ...]}, pending,
  // notFound, followed, saved, server}; background/lookup.js forPage() says why papers are flat.
  LOOKUP: 'papers/lookup',
  SAVE: 'papers/save', // {arxivId, listId?, note?} -> {status: 'saved'|'queued', saveId}
  UNSAVE: 'papers/unsave', // {arxivId, listId?} -> {status}
  UNDO: 'saves/undo', // {saveId} -> {status}
  LISTS: 'lists/get', // {} -> {lists, defaultList}
  STATE: 'state/get', // {} -> connection, queue, recent saves
  CONNECT: 'auth/connect', // {} -> opens <server>/extension/connect
  TOKEN: 'auth/token', // {token, server} from the connect page or the options page
  DISCONNECT: 'auth/disconnect', // {}
  SET_DEFAULT_LIST: 'lists/set-default', // {listId}
  SET_SERVER: 'settings/set-server', // {server}
  STAY_SIGNED_IN: 'settings/stay-signed-in', // {stay} -> keep the token across restarts or not
  FLUSH: 'queue/flush', // {} -> retry waiting saves now
});

export const ALL_TYPES = Object.freeze(Object.values(MSG));
