import { createApp } from 'vue';
import 'paylink/checkout';
import App from './App.vue';

createApp(App).mount('#app');
