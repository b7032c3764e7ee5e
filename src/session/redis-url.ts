// A Redis URL often carries a password (redis://:secret@host:6379). Anything that reaches a log line
// or an error message goes through describeRedisUrl first.

/** Throws (without echoing the URL, which may hold a password) unless `url` is a redis:// or rediss:// URL. */
export function assertRedisUrl(url: string): void {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new Error('The Redis URL is not a valid URL (expected redis://[user:password@]host[:port][/db])');
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw new Error(`The Redis URL must start with redis:// or rediss://, not ${protocol}//`);
  }
}

/** The URL without its password, for messages: redis://user@host:6379/0. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(an invalid Redis URL)';
  }
}
