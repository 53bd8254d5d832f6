/**
 * The statistics of the timing test: a two-sample Kolmogorov–Smirnov test and Yuen's trimmed-mean
 * t-test (Welch's test on trimmed means with winsorised variances). Plain functions, no I/O.
 */

/** Two-sample KS: D = sup |F1 − F2|, p from the asymptotic Kolmogorov distribution (Stephens' correction). */
export function ksTest(a, b) {
  const x = Float64Array.from(a).sort();
  const y = Float64Array.from(b).sort();
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < x.length && j < y.length) {
    const v = Math.min(x[i], y[j]);
    while (i < x.length && x[i] <= v) i++;
    while (j < y.length && y[j] <= v) j++;
    d = Math.max(d, Math.abs(i / x.length - j / y.length));
  }
  const ne = (x.length * y.length) / (x.length + y.length);
  const lambda = (Math.sqrt(ne) + 0.12 + 0.11 / Math.sqrt(ne)) * d;
  return { d, p: kolmogorovQ(lambda) };
}

/** Q_KS(λ) = 2 Σ (−1)^(k−1) e^(−2k²λ²), the probability that D exceeds what was seen under H0. */
function kolmogorovQ(lambda) {
  if (lambda < 1e-3) return 1;
  let sum = 0;
  for (let k = 1; k <= 200; k++) {
    const term = 2 * (k % 2 === 1 ? 1 : -1) * Math.exp(-2 * k * k * lambda * lambda);
    sum += term;
    if (Math.abs(term) < 1e-12) break;
  }
  return Math.min(1, Math.max(0, sum));
}

/** Yuen's test with `trim` cut from each tail (0.1 = 10 %): t, Welch–Satterthwaite df, two-sided p. */
export function yuenTest(a, b, trim = 0.1) {
  const one = trimmedSummary(a, trim);
  const two = trimmedSummary(b, trim);
  const se2 = one.d + two.d;
  const t = (one.mean - two.mean) / Math.sqrt(se2);
  const df = (se2 * se2) / ((one.d * one.d) / (one.h - 1) + (two.d * two.d) / (two.h - 1));
  return { t, df, p: 2 * (1 - studentCdf(Math.abs(t), df)), trimmedMeanA: one.mean, trimmedMeanB: two.mean };
}

function trimmedSummary(values, trim) {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  const g = Math.floor(trim * n);
  const h = n - 2 * g;
  let sum = 0;
  for (let i = g; i < n - g; i++) sum += sorted[i];
  const mean = sum / h;
  // Winsorised variance: the trimmed tails replaced by the extreme values kept.
  let wsum = 0;
  for (let i = 0; i < n; i++) wsum += sorted[Math.min(Math.max(i, g), n - g - 1)];
  const wmean = wsum / n;
  let wss = 0;
  for (let i = 0; i < n; i++) wss += (sorted[Math.min(Math.max(i, g), n - g - 1)] - wmean) ** 2;
  const wvar = wss / (n - 1);
  return { mean, h, d: ((n - 1) * wvar) / (h * (h - 1)) };
}

/** Student's t CDF through the regularised incomplete beta function (continued fraction, Numerical Recipes). */
export function studentCdf(t, df) {
  const x = df / (df + t * t);
  const tail = 0.5 * incompleteBeta(x, df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

function incompleteBeta(x, a, b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(x, a, b)) / a;
  return 1 - (front * betaFraction(1 - x, b, a)) / b;
}

function betaFraction(x, a, b) {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

function logGamma(z) {
  const g = [
    676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - logGamma(1 - z);
  const zz = z - 1;
  let x = 0.99999999999980993;
  for (let i = 0; i < g.length; i++) x += g[i] / (zz + i + 1);
  const t = zz + g.length - 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (zz + 0.5) * Math.log(t) - t + Math.log(x);
}

export function quantile(values, q) {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * (sorted.length - 1))))];
}
