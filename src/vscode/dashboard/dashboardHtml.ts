// The dashboard's HTML shell, kept free of `vscode` so the webview test serves the very same page.
// Strict CSP: nothing by default; scripts only with this page's nonce; styles only from the webview's
// own resource origin (or with the nonce); images only from there or data: URIs. No data in the HTML.
import { randomBytes } from 'node:crypto';

export interface DashboardHtmlInput {
  /** `webview.cspSource`: the origin of the extension's local resources. */
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  nonce: string;
}

/** 18 random bytes, base64 without + / =: ~140 bits, fresh for every page load. */
export function makeNonce(): string {
  return randomBytes(18).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

export function dashboardCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'", `script-src 'nonce-${nonce}'`, `style-src ${cspSource} 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`, `font-src ${cspSource}`,
  ].join('; ');
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function dashboardHtml(i: DashboardHtmlInput): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(dashboardCsp(i.cspSource, i.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${attr(i.nonce)}" href="${attr(i.styleUri)}">
<title>Memory Dashboard</title>
</head>
<body>
<div id="root" aria-live="polite">Loading…</div>
<script nonce="${attr(i.nonce)}" src="${attr(i.scriptUri)}"></script>
</body>
</html>`;
}
