import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const webRoot = fileURLToPath(new URL('.', import.meta.url));
const apiTarget = `http://127.0.0.1:${process.env.TILTH_DEV_API_PORT ?? 5173 + 1}`;

export default defineConfig({
  root: webRoot,
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    proxy: {
      '/api': {
        target: apiTarget,
        ws: true,
        changeOrigin: true,
        // The API checks Origin on WebSocket upgrades and state-changing requests (CSRF guard),
        // and the browser's Origin here is the dev server's. Present the API's own origin so
        // the dev setup passes the same checks a built app does, without weakening them.
        configure(proxy) {
          proxy.on('proxyReq', (req) => req.setHeader('origin', apiTarget));
          proxy.on('proxyReqWs', (req) => req.setHeader('origin', apiTarget));
        },
      },
    },
  },
});
