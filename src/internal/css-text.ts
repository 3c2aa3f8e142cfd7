/**
 * Tags a CSS text, so the build's literal minifier (which knows `css`) compacts it: plain string
 * interpolation, no Lit `CSSResult` (the checkout adopts the text into one constructed sheet).
 */
export const css = (strings: TemplateStringsArray, ...values: string[]): string => String.raw({ raw: strings }, ...values);
