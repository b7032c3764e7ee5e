// The keys of a Helm values file and their documentation, by helm-docs' convention: a `# --`
// comment right above a key documents that key and everything under it; a key without one is a
// section whose own keys must each be documented.
import { isMap, isScalar, parseDocument, type YAMLMap } from 'yaml';

export interface ValuesKeys {
  /** Dotted paths of the documented keys: `image.tag`, `resources`. */
  readonly documented: readonly string[];
  /** Dotted paths of keys with no `# --` on them or on a section above them. */
  readonly undocumented: readonly string[];
}

export function valuesKeys(text: string): ValuesKeys {
  const document = parseDocument(text);
  const documented: string[] = [];
  const undocumented: string[] = [];
  const walk = (map: YAMLMap, path: string[]): void => {
    map.items.forEach((pair, index) => {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const keyPath = [...path, key];
      // The yaml library hangs the comment above a map's first key on the map itself.
      const comment = (isScalar(pair.key) ? pair.key.commentBefore : undefined) ?? (index === 0 ? map.commentBefore : undefined);
      if (isHelmDocsComment(comment)) documented.push(keyPath.join('.'));
      else if (isMap(pair.value) && pair.value.items.length > 0) walk(pair.value, keyPath);
      else undocumented.push(keyPath.join('.'));
    });
  };
  if (!isMap(document.contents)) throw new Error('a values file is a mapping');
  walk(document.contents, []);
  return { documented, undocumented };
}

/** Whether the last paragraph of a comment (the part right above the key) starts with `--`. */
function isHelmDocsComment(comment: string | null | undefined): boolean {
  if (!comment) return false;
  const paragraphs = comment.split(/\n\s*\n/);
  return /^\s*--\s\S/.test(paragraphs.at(-1) ?? '');
}
