// The server's base URL: normalised once, and every link to a server page built here.

export const DEFAULT_SERVER = 'http://127.0.0.1:8000';

// Origins the manifest grants at install; any other server needs an optional permission.
export const BUILTIN_HOSTS = ['127.0.0.1', 'localhost'];

export function normalizeServer(raw) {
  let url;
  try {
    url = new URL(String(raw ?? '').trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash) return null;
  const path = url.pathname.replace(/\/+$/, '');
  return url.origin + path;
}

export function originPattern(server) {
  const url = new URL(server);
  return `${url.protocol}//${url.hostname}/*`;
}

export function isBuiltinServer(server) {
  return BUILTIN_HOSTS.includes(new URL(server).hostname);
}

export function topicUrl(server, slug) {
  return `${server}/topics/${encodeURIComponent(slug)}/`;
}

export function paperUrl(server, arxivId) {
  // Old-style ids keep their slash as a path separator, as on arxiv.org.
  return `${server}/papers/${arxivId.split('/').map(encodeURIComponent).join('/')}/`;
}

export function connectUrl(server, extensionId) {
  return `${server}/extension/connect?ext=${encodeURIComponent(extensionId)}`;
}
