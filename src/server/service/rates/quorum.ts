/**
 * Which sources agree on a value: the largest set of them whose every value lies within the spread of
 * the set's median. Pure and exact (bigint ratios), so the property test can hold it to its promise:
 * when more than half of the sources are honest and agree, the value chosen lies within the spread of
 * an honest value, whatever the others say.
 *
 * Ties between sets of the largest size are settled by what is known besides the values: the sets
 * that share a source describe one price (any of them is within the spread of the others' members), so
 * the one whose median is nearest the median of all is taken; sets that share none are two different
 * prices, and only a reference (the value last quoted, else the peg) tells which is right. Without one,
 * nothing is chosen and no source is blamed: two sources that disagree, with nothing to tell them
 * apart, are not one honest and one outlier.
 */
import { compareRatio, medianRatio, type Ratio } from '../../../core/money.js';

/** One source's value of a code. */
export interface SourceValue<Name extends string = string> {
  source: Name;
  value: Ratio;
}

/** What the sources agree on. */
export interface Agreement<Name extends string = string> {
  /** The agreeing sources (empty when undecided), in the order given. */
  agreed: Name[];
  /** Their median; undefined when undecided. */
  value: Ratio | undefined;
  /** The sources outside the chosen set (empty when undecided). */
  outliers: Name[];
  /** True when the largest sets are different prices and nothing told which is right. */
  undecided: boolean;
}

/** At most this many sources are weighed (every subset is tried: 2^n). */
const MAX_SOURCES = 12;

/** |a − b| ≤ fraction × b, exactly. */
export function within(a: Ratio, b: Ratio, fraction: Ratio): boolean {
  // |a/b − 1| ≤ f  ⇔  |a·b.den − b.num·a.den| · f.den ≤ f.num · b.num · a.den  (a and b positive).
  const difference = a.num * b.den - b.num * a.den;
  return (difference < 0n ? -difference : difference) * fraction.den <= fraction.num * b.num * a.den;
}

/** The relative distance |a − b| / b as a ratio (for comparing distances). */
function distance(a: Ratio, b: Ratio): Ratio {
  const difference = a.num * b.den - b.num * a.den;
  return { num: difference < 0n ? -difference : difference, den: b.num * a.den };
}

/**
 * The largest set of `values` that agree within `spread` of its median (see the module comment);
 * `reference` settles a tie between sets that share no source.
 */
export function agreeingSources<Name extends string>(values: readonly SourceValue<Name>[], spread: Ratio, reference?: Ratio): Agreement<Name> {
  const undecided: Agreement<Name> = { agreed: [], value: undefined, outliers: [], undecided: true };
  if (values.length === 0) return { ...undecided, undecided: false };
  const weighed = values.slice(0, MAX_SOURCES);
  let best: { members: number; median: Ratio }[] = [];
  let bestSize = 0;
  for (let members = 1; members < 1 << weighed.length; members++) {
    const chosen = weighed.filter((_, index) => members & (1 << index));
    if (chosen.length < bestSize) continue;
    const median = medianRatio(chosen.map((entry) => entry.value))!;
    if (!chosen.every((entry) => within(entry.value, median, spread))) continue;
    if (chosen.length > bestSize) [best, bestSize] = [[], chosen.length];
    best.push({ members, median });
  }
  let pick = best[0]!;
  if (best.length > 1) {
    const overlapping = best.every((a) => best.every((b) => (a.members & b.members) !== 0));
    const target = overlapping ? medianRatio(weighed.map((entry) => entry.value))! : reference;
    if (!target) return undecided;
    const ranked = [...best].sort((a, b) => compareRatio(distance(a.median, target), distance(b.median, target)));
    // Two different prices equally near the reference: still nothing tells them apart.
    if (!overlapping && compareRatio(distance(ranked[0]!.median, target), distance(ranked[1]!.median, target)) === 0) return undecided;
    pick = ranked[0]!;
  }
  return {
    agreed: weighed.filter((_, index) => pick.members & (1 << index)).map((entry) => entry.source),
    value: pick.median,
    outliers: values.filter((_, index) => !(pick.members & (1 << index))).map((entry) => entry.source),
    undecided: false,
  };
}

/** (max − min) / median of some values, the spread the Rates view shows; undefined for none. */
export function spreadOf(values: readonly Ratio[]): Ratio | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort(compareRatio);
  const [low, high] = [sorted[0]!, sorted.at(-1)!];
  const median = medianRatio(sorted)!;
  // (high − low) / median
  return { num: (high.num * low.den - low.num * high.den) * median.den, den: high.den * low.den * median.num };
}
