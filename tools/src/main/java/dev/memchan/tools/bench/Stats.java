package dev.memchan.tools.bench;

import java.util.List;

/** Median, extremes and interquartile range of a sample. */
record Stats(double median, double min, double max, double q1, double q3) {
    static Stats of(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (v.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        return new Stats(q(v, 0.5), v[0], v[v.length - 1], q(v, 0.25), q(v, 0.75));
    }

    /** Linear interpolation between the closest ranks. */
    static double q(double[] sorted, double p) {
        double idx = p * (sorted.length - 1);
        int lo = (int) Math.floor(idx);
        int hi = (int) Math.ceil(idx);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (idx - lo);
    }

    /** "min..max" with {@code format} for each end. */
    String spread(String format) {
        return String.format(java.util.Locale.ROOT, format + ".." + format, min, max);
    }
}
