// The account as the extension keeps it: who is connected, their lists and followed topics,
// refetched when older than a few minutes.

import { errorInfo } from './context.js';

export const REFRESH_ALARM = 'refresh';
const STALE_MS = 10 * 60 * 1000;

// Lists and follows, refetched when older than a few minutes (or when forced).
export async function refreshAccount(ctx, { force = false } = {}) {
  const { lists, follows } = await ctx.local.get('lists', 'follows');
  if (!(await ctx.tokens.get())) return { status: 'not-connected' };
  const now = ctx.now();
  if (!force && now - lists.fetchedAt < STALE_MS && now - follows.fetchedAt < STALE_MS) return { status: 'fresh' };
  try {
    const [account, listItems, followItems] = await Promise.all([ctx.api.me(), ctx.api.lists(), ctx.api.follows()]);
    await ctx.local.set({
      account,
      authState: 'ok',
      lists: { items: listItems, fetchedAt: now },
      follows: { items: followItems, fetchedAt: now },
    });
    return { status: 'refreshed' };
  } catch (error) {
    if (error.kind === 'auth') await ctx.local.set({ authState: 'expired' });
    await ctx.local.set({ lastError: errorInfo(error, now) });
    return { status: 'failed', error: errorInfo(error, now) };
  }
}

export async function getLists(ctx) {
  await refreshAccount(ctx);
  const { lists, defaultListId, account } = await ctx.local.get('lists', 'defaultListId', 'account');
  return { lists: lists.items, defaultList: defaultListId ?? account?.defaultList ?? null };
}

export async function setDefaultList(ctx, { listId }) {
  await ctx.local.set({ defaultListId: listId ?? null });
  return { defaultList: listId ?? null };
}
