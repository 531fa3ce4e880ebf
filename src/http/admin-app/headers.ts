// Every answer under /admin: not to be sniffed, framed, cached (but the hashed assets), or
// read by another origin's page, and no Referer leaves it.
import type { Plugin } from 'graphql-yoga';

export function useAppHeaders(): Plugin {
  return {
    onResponse({ response }) {
      const set = (name: string, value: string) => void (response.headers.has(name) || response.headers.set(name, value));
      set('X-Content-Type-Options', 'nosniff');
      set('X-Frame-Options', 'DENY');
      set('Referrer-Policy', 'same-origin');
      set('Cross-Origin-Resource-Policy', 'same-origin');
      set('Cache-Control', 'no-store');
    },
  };
}
