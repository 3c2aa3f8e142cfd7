/**
 * The admin's French says apart what its English says apart: a text shared by two keys whose English
 * differs is a word a French reader cannot tell apart where the English reader can (a link's state
 * "Actif" and a withdrawal's asset "Actif" once). The pairs listed here are the same thing said twice.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import en from '../../../src/components/admin/translations/en.js';
import fr from '../../../src/components/admin/translations/fr.js';

/** French texts that serve keys of different English on purpose: the same thing in French. */
const SAME_IN_FRENCH: Record<string, string[]> = {
  'Tous les états': ['statusAll', 'statusAny'],
  Modifier: ['edit', 'editWithdrawal'],
  'En attente': ['pending', 'status_pending', 'session_awaiting_payment', 'delivery_pending'],
  'Confirmer le retrait': ['confirmTitle', 'confirm'],
  'Ajouter un point de terminaison': ['newEndpoint', 'addEndpointTitle'],
  Supprimer: ['delete', 'confirmDeleteEndpoint'],
};

describe("the admin's French", () => {
  it('has one word for each thing its English tells apart', () => {
    const byFrench = new Map<string, string[]>();
    for (const [key, text] of Object.entries(fr)) byFrench.set(text, [...(byFrench.get(text) ?? []), key]);
    const merged = Object.fromEntries([...byFrench].filter(([, keys]) => new Set(keys.map((key) => en[key as keyof typeof en])).size > 1));
    assert.deepEqual(merged, SAME_IN_FRENCH);
  });

  it('names a link’s Active state and a withdrawal’s asset differently', () => {
    assert.equal(fr.active, 'Actif');
    assert.equal(fr.asset, 'Jeton');
  });
});
