import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';

// Paylink's elements are custom elements, not Vue components.
export default defineConfig({
  plugins: [vue({ template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('paylink-') } } })],
});
