// Security finding 2 (issue 17): the API token was kept in chrome.storage.local, which every
// content script can read. It now lives in chrome.storage.session (trusted contexts only) and,
// with "stay signed in", in the extension origin's IndexedDB.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { receiveToken, setStaySignedIn } from '../background/auth.js';
import { migrate } from '../shared/storage.js';
import { createTokenStore, lockSession } from '../shared/token-store.js';
import { makeContext } from './helpers/context.js';
import { createFakeChrome, createFakeDurable } from './helpers/fake-chrome.js';

const connectPage = { url: 'http://127.0.0.1:8000/extension/connect?ext=testextensionid', tab: { id: 3 } };

describe('the token', () => {
  it('never lands in chrome.storage.local, where content scripts could read it', async () => {
    const { ctx, fake, durable } = await makeContext({ connected: false });
    const result = await receiveToken(ctx, { token: 'good-token', server: 'http://127.0.0.1:8000' }, connectPage);
    assert.equal(result.status, 'connected');
    assert.equal(JSON.stringify([...fake.chrome.storage.local.data]).includes('good-token'), false);
    assert.equal(fake.chrome.storage.session.data.get('token'), 'good-token');
    assert.equal(durable.data.get('token'), 'good-token'); // "stay signed in" is on by default
  });

  it('survives a browser restart only when the person chose to stay signed in', async () => {
    const { ctx, fake, durable } = await makeContext({ connected: false });
    await receiveToken(ctx, { token: 'good-token' }, connectPage);
    await fake.chrome.storage.session.clear(); // the browser restarted
    assert.equal(await ctx.tokens.get(), 'good-token');

    await setStaySignedIn(ctx, { stay: false });
    assert.equal(durable.data.has('token'), false);
    assert.equal(await ctx.tokens.get(), 'good-token'); // still this session
    await fake.chrome.storage.session.clear();
    assert.equal(await ctx.tokens.get(), null);
  });

  it('moves a token an older version left in local storage', async () => {
    const { chrome } = createFakeChrome();
    await chrome.storage.local.set({ schema: 1, token: 'old-token' });
    const tokens = createTokenStore({ session: chrome.storage.session, durable: createFakeDurable() });
    await migrate(chrome.storage.local, { tokens });
    assert.equal(chrome.storage.local.data.has('token'), false);
    assert.equal(await tokens.get(), 'old-token');
  });

  it('locks the session area to the extension itself', async () => {
    const calls = [];
    await lockSession({ setAccessLevel: async (options) => calls.push(options) });
    assert.deepEqual(calls, [{ accessLevel: 'TRUSTED_CONTEXTS' }]);
  });
});
