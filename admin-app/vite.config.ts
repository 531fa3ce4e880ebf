// The admin app's build: React compiled by Vite into admin-app/dist (git-ignored), served by
// the service at /admin (src/http/admin-app/files.ts). Every asset is bundled: nothing loads
// from elsewhere at run time.

import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/admin/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // the bundle is served from this machine; a larger chunk costs nothing over a CDN
    chunkSizeWarningLimit: 1200,
    // data: URIs are allowed by the page's CSP for images only; keep fonts and the rest as files
    assetsInlineLimit: 0,
  },
});
