// The service worker: listeners registered at top level, each event handled with a fresh context.
// No state lives here; everything is in chrome.storage.

import { migrate } from '../shared/storage.js';
import { lockSession } from '../shared/token-store.js';
import { REFRESH_ALARM, refreshAccount } from './account.js';
import { registerConnectScript } from './auth.js';
import { createContext } from './context.js';
import { sweepCache } from './lookup.js';
import { flushQueue, RETRY_ALARM, updateBadge } from './queue.js';
import { handleMessage } from './router.js';

async function onInstalled() {
  const ctx = createContext();
  await migrate(ctx.chrome.storage.local, { tokens: ctx.tokens });
  await ctx.chrome.alarms.create(REFRESH_ALARM, { periodInMinutes: 30 });
  const { server } = await ctx.local.get('server');
  await registerConnectScript(ctx, server).catch(() => {});
  await updateBadge(ctx);
}

async function onStartup() {
  const ctx = createContext();
  await updateBadge(ctx);
  await flushQueue(ctx);
}

async function onAlarm(alarm) {
  const ctx = createContext();
  if (alarm.name === RETRY_ALARM) await flushQueue(ctx);
  if (alarm.name === REFRESH_ALARM) {
    await sweepCache(ctx);
    await refreshAccount(ctx);
    await flushQueue(ctx);
  }
}

lockSession(chrome.storage.session).catch((error) => console.warn('Paperscope could not lock session storage', error));
chrome.runtime.onInstalled.addListener(() => {
  onInstalled().catch((error) => console.warn('Paperscope install step failed', error));
});
chrome.runtime.onStartup.addListener(() => {
  onStartup().catch((error) => console.warn('Paperscope startup step failed', error));
});
chrome.alarms.onAlarm.addListener((alarm) => {
  onAlarm(alarm).catch((error) => console.warn(`Paperscope alarm ${alarm.name} failed`, error));
});
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  const ctx = createContext();
  handleMessage(ctx, message, sender).then((answer) => {
    sendResponse(answer);
    ctx.runDeferred();
  });
  return true;
});
