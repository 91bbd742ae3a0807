// Helpers shared by the popup and the options page: one way to ask the service worker, one way
// to build nodes (text only, never HTML).

export async function send(type, payload = {}) {
  const answer = await chrome.runtime.sendMessage({ type, payload });
  if (!answer?.ok) throw new Error(answer?.error?.detail || answer?.error?.kind || 'No answer from the extension.');
  return answer.result;
}

export function el(tag, { className, text, attrs = {} } = {}, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export function absUrl(arxivId) {
  return `https://arxiv.org/abs/${arxivId}`;
}
