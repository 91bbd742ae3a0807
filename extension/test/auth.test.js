import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { getLists } from '../background/account.js';
import { disconnect, openConnectPage, receiveToken, setServer } from '../background/auth.js';
import { savePaper } from '../background/saves.js';
import { makeContext } from './helpers/context.js';

const connectPage = { url: 'http://127.0.0.1:8000/extension/connect?ext=testextensionid', tab: { id: 3 } };

describe('connecting', () => {
  it('opens the server\'s connect page with the extension id', async () => {
    const { ctx, fake } = await makeContext({ connected: false });
    await openConnectPage(ctx);
    assert.equal(fake.tabs[0].url, 'http://127.0.0.1:8000/extension/connect?ext=testextensionid');
  });

  it('keeps a token from the connect page after checking it, then delivers waiting saves', async () => {
    const { ctx, server } = await makeContext({ connected: false });
    await savePaper(ctx, { arxivId: '2501.00001' });
    const result = await receiveToken(ctx, { token: 'good-token', server: 'http://127.0.0.1:8000' }, connectPage);
    assert.deepEqual(result, { status: 'connected', username: 'alice' });
    const stored = await ctx.local.get('lists', 'follows', 'queue');
    assert.equal(await ctx.tokens.get(), 'good-token');
    assert.equal(stored.lists.items[0].name, 'Reading list');
    assert.equal(stored.follows.items[0].slug, 'graph-neural-networks');
    assert.deepEqual(stored.queue, []);
    assert.equal(server.state.items.get(7).has('2501.00001'), true);
  });

  it('ignores tokens from pages on other origins', async () => {
    const { ctx } = await makeContext({ connected: false });
    const result = await receiveToken(ctx, { token: 'good-token' }, { url: 'https://evil.example/extension/connect', tab: { id: 1 } });
    assert.equal(result.status, 'rejected');
    assert.equal(await ctx.tokens.get(), null);
  });

  it('rejects a token the server refuses', async () => {
    const { ctx } = await makeContext({ connected: false });
    const result = await receiveToken(ctx, { token: 'wrong' }, { url: 'chrome-extension://testextensionid/options/options.html' });
    assert.equal(result.status, 'rejected');
  });

  it('disconnect forgets the token but keeps waiting saves', async () => {
    const { ctx, server } = await makeContext();
    server.state.down = true;
    await savePaper(ctx, { arxivId: '2501.00001' });
    await disconnect(ctx);
    const stored = await ctx.local.get('queue');
    assert.equal(await ctx.tokens.get(), null);
    assert.equal(stored.queue.length, 1);
  });

  it('lists come from the server, the chosen default from the popup', async () => {
    const { ctx } = await makeContext();
    await ctx.local.set({ defaultListId: '9' });
    const answer = await getLists(ctx);
    assert.equal(answer.lists.length, 1);
    assert.equal(answer.defaultList, '9');
  });

  it('a new server clears the token and registers the connect script for its origin', async () => {
    const { ctx, fake } = await makeContext();
    assert.equal((await setServer(ctx, { server: 'javascript:alert(1)' })).status, 'rejected');
    const result = await setServer(ctx, { server: 'https://papers.example.org/' });
    assert.deepEqual(result, { status: 'saved', server: 'https://papers.example.org' });
    assert.equal(await ctx.tokens.get(), null);
    assert.deepEqual(fake.scripts.get('paperscope-connect').matches, ['https://papers.example.org/extension/connect*']);
    await setServer(ctx, { server: 'http://localhost:8000' });
    assert.equal(fake.scripts.size, 0);
  });
});
