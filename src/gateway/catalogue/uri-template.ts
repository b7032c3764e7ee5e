// Which URIs a resource template (RFC 6570) can expand to, as a RegExp. Only used to route reads of
// unprefixed servers' URIs, where the URI itself does not say which server owns it; it errs on the
// side of matching, since the owning upstream still decides whether the resource exists.

const EXPRESSION = /\{([+#./;?&]?)[^}]*\}/g;

export function templateMatcher(template: string): RegExp {
  let pattern = '^';
  let last = 0;
  for (const match of template.matchAll(EXPRESSION)) {
    pattern += escapeRegExp(template.slice(last, match.index));
    pattern += expressionPattern(match[1] ?? '');
    last = match.index + match[0].length;
  }
  pattern += `${escapeRegExp(template.slice(last))}$`;
  return new RegExp(pattern, 's');
}

function expressionPattern(operator: string): string {
  switch (operator) {
    case '+':
      return '.*';
    case '#':
      return '(?:#.*)?';
    case '/':
      return '(?:/[^?#]*)?';
    case '?':
    case '&':
      return '(?:[?&][^#]*)?';
    default:
      return '[^/?#]*';
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
