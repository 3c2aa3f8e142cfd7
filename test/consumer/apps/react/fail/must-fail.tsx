// Must not compile: each line that ends with the cross mark is a type error, and no other line is.
import { PaylinkCheckout } from 'paylink/react';

export const misspeltEvent = <PaylinkCheckout slug="x" onPaylinkSucess={() => {}} />; // ✗
export const wrongDetail = <PaylinkCheckout slug="x" onPaylinkSuccess={(event) => event.detail.link} />; // ✗
export const wrongDetailOnElement = <paylink-checkout slug="x" onpaylink-ready={(event) => event.detail.session} />; // ✗
export const wrongTheme = <paylink-checkout slug="x" theme="blue" />; // ✗
export const missingSlug = <PaylinkCheckout apiBase="/paylink" />; // ✗
