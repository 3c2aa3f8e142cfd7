/**
 * Registers the French texts of `<paylink-admin>`. The npm package's admin imports it, so French is
 * built in there; `dist/paylink.js` leaves it out (4.5 kB gzipped that most consoles never show) and
 * `dist/paylink-admin.fr.js`, built from this module alone, brings it: one more script tag, before or
 * after the element's.
 */
import { registerAdminTable } from './admin-locales.js';
import fr from './translations/fr.js';

registerAdminTable('fr', fr);
