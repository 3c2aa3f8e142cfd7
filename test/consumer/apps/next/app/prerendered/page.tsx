// Prerendered at build time: every element entry imports on the server while Next renders it.
import 'paylink';
import 'paylink/checkout';
import 'paylink/admin';
import { PaylinkCheckout } from 'paylink/react';

export default function Prerendered() {
  return <PaylinkCheckout slug="prerendered" />;
}
