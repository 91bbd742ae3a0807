// Options: the server URL (asking for the host permission a custom origin needs) and a pasted token.

import { MSG } from '../shared/messages.js';
import { isBuiltinServer, normalizeServer, originPattern } from '../shared/server-url.js';
import { send } from '../shared/ui.js';

const $ = (id) => document.getElementById(id);

async function show() {
  const state = await send(MSG.STATE);
  $('server').value = state.server;
  $('stay').checked = state.staySignedIn !== false;
  $('token-status').textContent = state.connection === 'connected' ? `Connected as ${state.username ?? 'you'}.` : state.connection === 'expired' ? 'Token expired: connect again.' : 'Not connected.';
}

async function askPermission(server) {
  if (isBuiltinServer(server)) return true;
  // No await before this call: it must stay inside the click's user gesture.
  return chrome.permissions.request({ origins: [originPattern(server)], permissions: ['scripting'] });
}

$('server-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const server = normalizeServer($('server').value);
  if (!server) {
    $('server-status').textContent = 'Enter an http:// or https:// address, without a query.';
    return;
  }
  let granted;
  try {
    granted = await askPermission(server);
  } catch (error) {
    $('server-status').textContent = `Permission request failed: ${error.message}`;
    return;
  }
  if (!granted) {
    $('server-status').textContent = `Paperscope needs access to ${new URL(server).host} to talk to it.`;
    return;
  }
  const result = await send(MSG.SET_SERVER, { server });
  $('server-status').textContent = result.status === 'saved' ? `Saved: ${result.server}` : result.detail;
  await show();
});

$('token-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  $('token-status').textContent = 'Checking…';
  const { server } = await send(MSG.STATE);
  const result = await send(MSG.TOKEN, { token: $('token').value, server }).catch((error) => ({ status: 'failed', detail: error.message }));
  $('token').value = '';
  $('token-status').textContent = result.status === 'connected' ? `Connected as ${result.username}.` : (result.detail ?? result.status);
});

$('stay').addEventListener('change', async () => {
  await send(MSG.STAY_SIGNED_IN, { stay: $('stay').checked });
});

$('disconnect').addEventListener('click', async () => {
  await send(MSG.DISCONNECT);
  await show();
});

show();
