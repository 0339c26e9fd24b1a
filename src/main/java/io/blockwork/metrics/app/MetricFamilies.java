package io.blockwork.metrics.app;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scrape's metric families, filled a data point at a time: a counter, gauge or histogram
 * family is made the first time its name is used and keeps its help text. Counters are named
 * without {@code _total} and info metrics without {@code _info}; the exposition adds them.
 */
final class MetricFamilies {

    private enum Type { COUNTER, GAUGE, INFO, HISTOGRAM }

    private record Family(String help, Type type, List<Object> points) {}

    private final Map<String, Family> families = new LinkedHashMap<>();

    void counter(String name, String help, double value, String... labels) {
        family(name, help, Type.COUNTER).points().add(CounterSnapshot.CounterDataPointSnapshot.builder()
                .value(value).labels(Labels.of(labels)).build());
    }

    void gauge(String name, String help, double value, String... labels) {
        family(name, help, Type.GAUGE).points().add(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                .value(value).labels(Labels.of(labels)).build());
    }

    /** An info metric: {@code name_info{labels} 1} ({@code name} without {@code _info}). */
    void info(String name, String help, String... labels) {
        family(name, help, Type.INFO).points().add(InfoSnapshot.InfoDataPointSnapshot.builder()
                .labels(Labels.of(labels)).build());
    }

    /**
     * @param upperBounds bucket bounds, the last one {@code +Inf}
     * @param counts the count in each bucket (not cumulative)
     */
    void histogram(String name, String help, double[] upperBounds, long[] counts, double sum, String... labels) {
        family(name, help, Type.HISTOGRAM).points().add(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                .classicHistogramBuckets(ClassicHistogramBuckets.of(upperBounds, counts)).sum(sum)
                .labels(Labels.of(labels)).build());
    }

    private Family family(String name, String help, Type type) {
        Family f = families.computeIfAbsent(name, n -> new Family(help, type, new ArrayList<>()));
        if (f.type() != type) {
            throw new IllegalStateException(name + " is used as two types of metric");
        }
        return f;
    }

    MetricSnapshots snapshots() {
        List<MetricSnapshot> out = new ArrayList<>();
        families.forEach((name, f) -> out.add(switch (f.type()) {
            case COUNTER -> {
                var b = CounterSnapshot.builder().name(name).help(f.help());
                f.points().forEach(p -> b.dataPoint((CounterSnapshot.CounterDataPointSnapshot) p));
                yield b.build();
            }
            case GAUGE -> {
                var b = GaugeSnapshot.builder().name(name).help(f.help());
                f.points().forEach(p -> b.dataPoint((GaugeSnapshot.GaugeDataPointSnapshot) p));
                yield b.build();
            }
            case INFO -> {
                var b = InfoSnapshot.builder().name(name).help(f.help());
                f.points().forEach(p -> b.dataPoint((InfoSnapshot.InfoDataPointSnapshot) p));
                yield b.build();
            }
            case HISTOGRAM -> {
                var b = HistogramSnapshot.builder().name(name).help(f.help());
                f.points().forEach(p -> b.dataPoint((HistogramSnapshot.HistogramDataPointSnapshot) p));
                yield b.build();
            }
        }));
        return new MetricSnapshots(out);
    }
}
