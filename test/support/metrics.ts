/**
 * Reading Prometheus's text format in tests: the samples of an exposition, and one sample's value by
 * name and labels.
 */

/** One line of an exposition: a metric name, its labels and its value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of an exposition (comments and blank lines skipped). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[name!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: match[3] === '+Inf' ? Infinity : match[3] === '-Inf' ? -Infinity : Number(match[3]) });
  }
  return samples;
}

/** The value of the sample `name` whose labels include `labels`, or undefined when there is none. */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;
}

/** Fetches an exposition (with `token` as a bearer when given) and parses it. */
export async function scrape(url: string, token?: string): Promise<Sample[]> {
  const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : undefined);
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return parseSamples(await res.text());
}
