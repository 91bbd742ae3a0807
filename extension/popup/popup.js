// The toolbar popup: connection state, connect/disconnect, the default list, the offline queue and
// recent saves with undo. A thin view over the service worker's state.

import { MSG } from '../shared/messages.js';
import { absUrl, el, send } from '../shared/ui.js';

const $ = (id) => document.getElementById(id);

const STATUS = {
  connected: (s) => `Connected as ${s.username ?? 'you'}`,
  expired: () => 'Your token expired or was revoked: connect again.',
  'not-connected': () => 'Not connected: tags show, saving waits for a connection.',
};

const SAVE_STATES = { saved: 'saved', queued: 'waiting', failed: 'failed', undone: 'undone' };

function renderRecent(recent) {
  const items = recent.map((item) => {
    const link = el('a', { text: item.arxivId, attrs: { href: absUrl(item.arxivId), target: '_blank' } });
    const badge = el('span', { className: 'badge', text: SAVE_STATES[item.state] ?? item.state, attrs: { 'data-state': item.state } });
    const row = el('li', {}, link, badge);
    if (item.state === 'saved' || item.state === 'queued') {
      const undo = el('button', { text: 'Undo', attrs: { type: 'button' } });
      undo.addEventListener('click', async () => {
        undo.disabled = true;
        await send(MSG.UNDO, { saveId: item.saveId }).catch(() => {});
        await refresh();
      });
      row.append(undo);
    }
    return row;
  });
  $('recent').replaceChildren(...items);
  $('no-recent').hidden = items.length > 0;
}

function renderLists(lists, selected) {
  $('list-section').hidden = lists.length === 0;
  $('default-list').replaceChildren(
    ...lists.map((list) => {
      const option = el('option', { text: `${list.name} (${list.itemCount})`, attrs: { value: String(list.id) } });
      option.selected = String(list.id) === String(selected);
      return option;
    }),
  );
}

async function refresh() {
  let state;
  try {
    state = await send(MSG.STATE);
  } catch (error) {
    $('status').textContent = `The extension did not answer: ${error.message}`;
    $('status').dataset.state = 'error';
    return;
  }
  $('status').textContent = STATUS[state.connection](state);
  $('status').dataset.state = state.connection;
  $('server').textContent = state.server;
  $('connect').hidden = state.connection === 'connected';
  $('disconnect').hidden = state.connection === 'not-connected';
  renderLists(state.lists, state.defaultList);
  $('queue-section').hidden = state.queue.length === 0;
  $('queue-text').textContent = `${state.queue.length} change(s) waiting for the server${state.lastError ? ` (${state.lastError.detail})` : ''}.`;
  renderRecent(state.recent);
}

$('connect').addEventListener('click', async () => {
  await send(MSG.CONNECT).catch(() => {});
  window.close();
});
$('disconnect').addEventListener('click', async () => {
  await send(MSG.DISCONNECT);
  await refresh();
});
$('default-list').addEventListener('change', async (event) => {
  await send(MSG.SET_DEFAULT_LIST, { listId: event.target.value });
});
$('retry').addEventListener('click', async () => {
  $('retry').disabled = true;
  await send(MSG.FLUSH).catch(() => {});
  $('retry').disabled = false;
  await refresh();
});

refresh();
send(MSG.LISTS)
  .then(() => refresh())
  .catch(() => {});
