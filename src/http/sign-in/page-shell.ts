// The shell of every small page people see around sign-in (consent, errors, the status page's
// sign-in pages, the connections pages): server-rendered with hono/html, one inline stylesheet
// allowed by a per-response nonce, no script, no external assets, forms only to this origin (and
// the targets a page names, e.g. the consent form's redirect origin).
import { randomBytes } from 'node:crypto';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

export interface RenderedPage {
  readonly html: string;
  readonly csp: string;
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
main{max-width:34rem;margin:4rem auto;padding:2rem;background:#fff;border:1px solid #d0d7de;border-radius:8px}
h1{font-size:1.4rem;margin-top:0}
code{font-size:.9em;background:#eef1f4;padding:.1em .3em;border-radius:4px;word-break:break-all}
ul{padding-left:1.2rem}
.actions{display:flex;gap:1rem;margin-top:1.5rem}
button{font:inherit;padding:.5rem 1.4rem;border-radius:6px;border:1px solid #8c959f;background:#fff;cursor:pointer}
button[value=allow]{background:#1f6feb;border-color:#1f6feb;color:#fff}
button:focus-visible,a:focus-visible{outline:3px solid #0969da;outline-offset:2px}
.note{color:#57606a;font-size:.9rem}
.warn{color:#9a6700}
`;

/** A page of the sign-in family: the shell, its one stylesheet by nonce, no script. */
export function page(title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>, formTargets: readonly string[] = []): RenderedPage {
  const nonce = randomBytes(16).toString('base64');
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body><main>${body}</main></body>
</html>`;
  const formAction = ["'self'", ...formTargets].join(' ');
  return {
    html: String(document),
    csp: `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  };
}

/**
 * The headers every such page is answered with. `same-origin` referrers, not `no-referrer`: with
 * no-referrer a browser sends `Origin: null` on a page's own form posts, which the CSRF checks refuse.
 */
export function pageHeaders(page: RenderedPage): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': page.csp,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
  };
}
